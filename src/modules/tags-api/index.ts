// This file is the tags-api module's public face: it exports the API of the company's catalogue of tags.
export { default as tagsRoutes } from './tags-api.routes.js'
export { createTag, tagsOfCompany } from './tags-api.service.js'
