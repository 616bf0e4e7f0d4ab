// OpenAPI 3.1 generated from the route schemas (the same ones requests are validated
// with), served at /docs/v1/openapi.json, with Swagger UI at /docs/v1 from the package's
// own files: no CDN.
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'

export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'engage API',
          version: '1.0.0',
          description:
            'Sales-engagement REST API. Authenticate with `Authorization: Bearer <api_token>` ' +
            '(or `api_token` in the query string or body). 60 requests per 10 seconds per token.',
        },
        components: {
          securitySchemes: {
            bearerToken: { type: 'http', scheme: 'bearer', description: 'The api_token' },
            queryToken: { type: 'apiKey', in: 'query', name: 'api_token' },
          },
        },
        security: [{ bearerToken: [] }, { queryToken: [] }],
      },
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
      },
    })
    await app.register(swaggerUi, { routePrefix: '/docs/v1', staticCSP: true })
    app.get('/docs/v1/openapi.json', { schema: { hide: true } }, () => app.swagger())
  },
  { name: 'docs' },
)
