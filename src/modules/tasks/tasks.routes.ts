import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { operation, tagRoutes } from '../../http/routes.js'
import { answerList, walkingList } from '../../http/sync.js'
import { TASK_FILTERS, TasksListQuery, TasksListResponse, TasksPage } from './tasks.schemas.js'
import { tasksPage, tasksWalk } from './tasks.service.js'
import texts from './tasks.operations.json' with { type: 'json' }

const TASKS_LIST = walkingList({
  resource: 'tasks', walkRefuses: TASK_FILTERS, pageNeeds: ['page'],
  query: TasksListQuery, pageSchema: TasksPage,
  walk: tasksWalk, page: tasksPage,
})

const tasksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'tasks')

  app.get('/v1/tasks', operation(texts, 'listTasks', { scope: 'tasks:read' }, {
    querystring: TasksListQuery, response: { 200: TasksListResponse },
  }), async (request, reply) => answerList(app, request, reply, request.query, TASKS_LIST))
}

export default tasksRoutes
