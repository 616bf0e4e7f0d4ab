import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { apiActing } from '../../acting.js'
import { operation, recordRoute, sendCreated, tagRoutes } from '../../http/routes.js'
import { IdParams, NoBody, Ref } from '../../http/schemas.js'
import { walkingListRoute } from '../../http/sync.js'
import { Task, TaskCreateBody } from '../tasks/index.js'
import { completeTask, createTask, getTask, TASKS_LIST } from './tasks-api.service.js'
import texts from './tasks-api.operations.json' with { type: 'json' }


const NO_TASK = 'No task with this id in your company'

const tasksRoutes: FastifyPluginAsyncTypebox = async (app) => {
  tagRoutes(app, 'tasks')

  walkingListRoute(app, '/v1/tasks', texts, 'listTasks', { scope: 'tasks:read' }, TASKS_LIST)

  recordRoute(app, '/v1/tasks/:id', texts, 'getTask', { scope: 'tasks:read', notFound: NO_TASK }, Task, getTask)

  app.post('/v1/tasks', operation(texts, 'createTask', { scope: 'tasks:write', rootKey: 'task' }, {
    body: TaskCreateBody, response: { 201: Ref(Task) },
  }), async (request, reply) => sendCreated(reply, '/api/v1/tasks', await createTask(request.db, apiActing(request), request.body)))

  app.put('/v1/tasks/:id/complete', operation(texts, 'completeTask', { scope: 'tasks:write', notFound: NO_TASK }, {
    params: IdParams, body: NoBody, response: { 200: Ref(Task) },
  }), async (request) => completeTask(request.db, apiActing(request), request.params.id))
}

export default tasksRoutes
