import { defineCommand } from '../../cli/command.js'
import { TaskCompleteInput, TaskCreateInput } from './tasks.schemas.js'
import { completeTaskCommand, createStandaloneTask } from './tasks.service.js'

export const tasksCommands = [
  defineCommand({
    name: 'task create',
    summary: 'Create a task outside any flow, about a contact',
    options: {
      contact: { value: 'ID', description: 'the contact (its company owns the task)', required: true },
      kind: { value: 'K', description: 'phonecall, email, linkedin, social or meeting', required: true },
      due: { value: 'yyyy-mm-dd', description: 'the due day (any day, past ones included)', required: true },
      title: { value: 'T', description: 'the title (default: from the kind and the contact name, "Call Ana Souza")' },
      'assigned-to': { value: 'ID', description: "a user of the contact's company (default: the contact's owner)" },
    },
    input: TaskCreateInput,
    run: (db, input, context) => createStandaloneTask(db, context, input),
  }),
  defineCommand({
    name: 'task complete',
    summary: 'Mark an open task done now (writes a task_completed contact event)',
    options: { id: { value: 'ID', description: 'the task id', required: true } },
    input: TaskCompleteInput,
    run: (db, input, context) => completeTaskCommand(db, context, input),
  }),
]
