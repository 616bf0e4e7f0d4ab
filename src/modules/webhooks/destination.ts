// Where a webhook may be delivered. Unless WEBHOOK_ALLOW_PRIVATE=true: https only, and never
// to loopback, private, link-local (cloud metadata 169.254.169.254, fd00:ec2::254), carrier-
// grade NAT, multicast or reserved addresses. The check runs when a subscription is saved
// and again at every delivery on the very addresses the connection uses (safeLookup), so a
// DNS answer that changes after the check (rebinding) cannot reach an internal service.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'

export const MAX_URL_LENGTH = 2048

const forbidden = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) forbidden.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23],
  ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) forbidden.addSubnet(network, prefix, 'ipv6')

/** True for an address no webhook may reach (IPv4-mapped IPv6 is judged as its IPv4). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return forbidden.check(address, 'ipv4')
  if (family !== 6) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped?.[1]) return forbidden.check(mapped[1], 'ipv4')
  return forbidden.check(address, 'ipv6')
}

// A developer trying a local receiver learns the switch; production keeps it off (docs/webhooks.md).
const PRIVATE_HINT = '(WEBHOOK_ALLOW_PRIVATE=true on the server allows it, for development only)'

/** Why a URL cannot be a destination, or null when it can (DNS is checked separately). */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > MAX_URL_LENGTH) return `must be at most ${String(MAX_URL_LENGTH)} characters`
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return url.protocol === 'http:' ? `must be an https URL ${PRIVATE_HINT}` : 'must be an https URL'
  }
  if (url.username || url.password) return 'must not contain a user name or password'
  if (url.hash) return 'must not contain a fragment'
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (!allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host)) return `must not point to a private or reserved address ${PRIVATE_HINT}`
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return `must not point to a private or reserved address ${PRIVATE_HINT}`
  return null
}

export class ForbiddenDestinationError extends Error {
  readonly code = 'EFORBIDDENDESTINATION'
}

/** Every address a host name resolves to; refuses the host if any of them is forbidden. */
export async function resolveDestination(hostname: string, allowPrivate: boolean): Promise<LookupAddress[]> {
  const host = hostname.replace(/^\[|\]$/g, '')
  const addresses: LookupAddress[] = isIP(host) !== 0
    ? [{ address: host, family: isIP(host) }]
    : await new Promise((resolve, reject) => {
        dnsLookup(host, { all: true }, (err, found) => {
          if (err) reject(err)
          else resolve(found)
        })
      })
  if (!allowPrivate) {
    const bad = addresses.find((a) => isForbiddenAddress(a.address))
    if (bad) throw new ForbiddenDestinationError(`${hostname} resolves to ${bad.address}, a private or reserved address`)
  }
  return addresses
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A `lookup` for http(s).request/net.connect that refuses forbidden addresses after
 * resolving, so the address checked is the address connected to.
 */
export function safeLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    resolveDestination(hostname, allowPrivate).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses
        const first = wanted[0]
        if (!first) {
          callback(Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }), '')
          return
        }
        if (options.all) callback(null, wanted)
        else callback(null, first.address, first.family)
      },
      (err: unknown) => {
        callback(err as NodeJS.ErrnoException, '')
      },
    )
  }
}
