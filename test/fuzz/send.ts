// Sends a generated request to the app in process (app.inject: the whole Fastify pipeline,
// no sockets) and checks the answer against the contract.
import type { App } from '../../src/app.js'
import { violations, type Response } from './contract.js'
import type { Pools } from './fixture.js'
import type { FuzzRequest } from './requests.js'
import { ownPool } from './values.js'

export interface Outcome {
  response: Response
  problems: string[]
}

/** Sends `req`; a record it creates joins `pools`, so later requests can hit it. */
export async function send(app: App, req: FuzzRequest, pools?: Pools): Promise<Outcome> {
  let response: Response
  try {
    const res = await app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      ...(req.payload === undefined ? {} : { payload: req.payload }),
    })
    response = { statusCode: res.statusCode, headers: res.headers, body: res.body }
  } catch (err) {
    // The in-process client refused the request itself: not the service's answer.
    return { response: { statusCode: 0, headers: {}, body: String(err) }, problems: [] }
  }
  if (pools && response.statusCode === 201) {
    try {
      const { id } = JSON.parse(response.body) as { id?: unknown }
      if (typeof id === 'number') ownPool(req.resource, pools)?.push(id)
    } catch {
      // the contract check below reports a body that is not JSON
    }
  }
  return { response, problems: violations(req, response) }
}

/** The first characters of a body, for reports. */
export const excerpt = (body: string, max = 400) => (body.length > max ? `${body.slice(0, max)}…` : body)
