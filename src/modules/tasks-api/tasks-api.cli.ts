import { defineCommand } from '../../cli/command.js'
import { TaskCompleteInput, TaskCreateInput } from '../tasks/index.js'
import { completeTaskCommand, createStandaloneTask } from './tasks-api.service.js'

export const tasksCommands = [
  defineCommand({
    name: 'task create', summary: 'Create a task outside any flow, about a contact',
    input: TaskCreateInput, run: createStandaloneTask,
  }),
  defineCommand({
    name: 'task complete', summary: 'Mark an open task done now (writes a task_completed contact event)',
    input: TaskCompleteInput, run: completeTaskCommand,
  }),
]
