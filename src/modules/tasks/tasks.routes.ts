import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { tagRoutes } from '../../http/routes.js'
import { answerList, walkingList } from '../../http/sync.js'
import { TASK_FILTERS, TasksListQuery, TasksListResponse, TasksPage } from './tasks.schemas.js'
import { tasksPage, tasksWalk } from './tasks.service.js'

const TASKS_LIST = walkingList({
  resource: 'tasks',
  query: TasksListQuery,
  walkRefuses: TASK_FILTERS,
  pageNeeds: ['page'],
  pageSchema: TasksPage,
  walk: tasksWalk,
  page: tasksPage,
})

const tasksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'tasks')

  app.get('/v1/tasks', {
    config: { scope: 'tasks:read' },
    schema: {
      operationId: 'listTasks',
      summary: 'List tasks (due date, then id), with filters that combine with AND',
      description:
        '"Today" is the current day in your company time zone: it decides `status` (today, overdue, future for open ' +
        'tasks) and the `status` filter, which selects open tasks only. Date bounds are inclusive; done dates are the ' +
        'finish day in the company time zone. `done` and `undone` together are refused.\n\n' +
        'With `updated_since` (then `cursor`): the tasks changed at or after it, in (updated_at, id) order; `page` and ' +
        'the filters are refused. `status` is as of the request: it changes with the day, not with `updated_at`.',
      querystring: TasksListQuery,
      response: { 200: TasksListResponse },
    },
  }, async (request, reply) => answerList(app, request, reply, request.query, TASKS_LIST))
}

export default tasksRoutes
