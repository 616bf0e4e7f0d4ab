import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { pageWindow, sendPage } from '../../http/pagination.js'
import { Ref } from '../../http/schemas.js'
import { TasksListQuery, TasksPage } from './tasks.schemas.js'
import { tasksPage } from './tasks.service.js'

const tasksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/tasks', {
    schema: {
      operationId: 'listTasks',
      tags: ['tasks'],
      summary: 'List tasks (due date, then id), with filters that combine with AND',
      description:
        '"Today" is the current day in your company time zone: it decides `status` (today, overdue, future for open ' +
        'tasks) and the `status` filter, which selects open tasks only. Date bounds are inclusive; done dates are the ' +
        'finish day in the company time zone. `done` and `undone` together are refused.',
      querystring: TasksListQuery,
      response: { 200: Ref(TasksPage) },
    },
  }, async (request, reply) => {
    const window = pageWindow(request.query)
    const page = await tasksPage(app.db, request.caller, request.query, window, app.clock())
    return sendPage(request, reply, window, page.total, page.data)
  })
}

export default tasksRoutes
