import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Ref } from '../../http/schemas.js'
import { answerList } from '../../http/sync.js'
import { TASK_FILTERS, TasksListQuery, TasksListResponse, TasksPage } from './tasks.schemas.js'
import { tasksPage, tasksWalk } from './tasks.service.js'

// The list page's own serializer (the route's response is the union of a page and a walk's page).
const PAGE = Ref(TasksPage)

const tasksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/tasks', {
    config: { scope: 'tasks:read' },
    schema: {
      operationId: 'listTasks',
      tags: ['tasks'],
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
  }, async (request, reply) => answerList(app, request, reply, request.query, {
    resource: 'tasks',
    walkRefuses: TASK_FILTERS,
    pageNeeds: ['page'],
    pageSchema: PAGE,
    walk: (walk) => tasksWalk(app.db, request.caller, walk),
    page: (query) => tasksPage(app.db, request.caller, query),
  }))
}

export default tasksRoutes
