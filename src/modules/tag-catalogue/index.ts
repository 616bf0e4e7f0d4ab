// The tag-catalogue module's public face: the API of the company's catalogue of tags.
export { default as tagsRoutes } from './tag-catalogue.routes.js'
export { createTag, tagsOfCompany } from './tag-catalogue.service.js'
