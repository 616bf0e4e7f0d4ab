import { Type, type Static } from 'typebox'
import { Id, MAX_ID, NonBlank, PagedList, PageParams, Ref, Str, Timestamp, Timestamps } from '../../http/schemas.js'
import { Task, TASK_EXAMPLE, TaskKind } from '../tasks/index.js'
import { CompanyOption } from '../users/index.js'

export const FLOW_STATUSES = ['active', 'paused'] as const

export const FlowStep = Type.Object({
  position: Type.Integer({ description: 'order of the step in the flow, from 1' }),
  day: Type.Integer({ description: 'days after the day the contact is added' }),
  kind: TaskKind,
  title: Type.String(),
}, { $id: 'FlowStep', description: 'One step of a flow: a task of its kind, due `day` days after the contact is added' })

export const Flow = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  user_id: Type.Integer({ description: 'the user who owns the flow' }),
  status: Type.Enum(FLOW_STATUSES),
  steps: Type.Array(Ref(FlowStep)),
  contacts_count: Type.Integer({ description: 'contacts active in the flow' }),
  ...Timestamps,
}, {
  $id: 'Flow',
  description: 'A flow: steps that become tasks for each contact added to it',
  examples: [{
    id: 7,
    name: 'Inbound follow-up',
    user_id: 3,
    status: 'active',
    steps: [
      { position: 1, day: 0, kind: 'email', title: 'Thank-you email' },
      { position: 2, day: 2, kind: 'phonecall', title: 'Intro call' },
    ],
    contacts_count: 42,
    created_at: '2026-02-01T12:00:00.000Z',
    updated_at: '2026-02-01T12:00:00.000Z',
  }],
})
export type Flow = Static<typeof Flow>

export const FlowsListQuery = Type.Object({
  ...PageParams,
  user_id: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ID, description: 'flows of this user' })),
  search_term: Type.Optional(Str(255, 'a case-insensitive part of the flow name')),
})
export type FlowsListQuery = Static<typeof FlowsListQuery>

export const FlowsPage = PagedList(Flow, 'FlowPage', 'A page of flows')

export const AddContactBody = Type.Object({ contact_id: Id }, { examples: [{ contact_id: 1204 }] })
export type AddContactBody = Static<typeof AddContactBody>

export const Enrollment = Type.Object({
  id: Type.Integer(),
  flow_id: Type.Integer(),
  contact_id: Type.Integer(),
  status: Type.Enum(['active', 'finished', 'removed']),
  added_at: Timestamp,
  tasks: Type.Array(Ref(Task), { description: "one per step, assigned to the contact's owner" }),
  ...Timestamps,
}, {
  $id: 'Enrollment',
  description: 'A contact added to a flow, with the tasks made for it',
  examples: [{
    id: 31,
    flow_id: 7,
    contact_id: 1204,
    status: 'active',
    added_at: '2026-03-07T13:02:11.000Z',
    tasks: [{ ...TASK_EXAMPLE, kind: 'email', title: 'Thank-you email', due_date: '2026-03-07' }],
    created_at: '2026-03-07T13:02:11.000Z',
    updated_at: '2026-03-07T13:02:11.000Z',
  }],
})
export type Enrollment = Static<typeof Enrollment>

/** A contact active in a flow, as the flow's page in the workspace lists it: its enrollment, the contact and when it was added. */
export const FlowContact = Type.Object(
  {
    id: Type.Integer({ description: 'the enrollment' }),
    contact_id: Type.Integer(),
    added_at: Timestamp,
  },
  { $id: 'FlowContact' },
)

export const MAX_STEP_DAY = 3650
export const MAX_STEPS = 50

/** One step as written: in the --steps file, POST /flows and PUT /flows/:id. */
export const FlowStepInput = Type.Object({
  day: Type.Integer({ minimum: 0, maximum: MAX_STEP_DAY }),
  kind: TaskKind,
  title: NonBlank(),
})
export type FlowStepInput = Static<typeof FlowStepInput>

const Steps = Type.Array(FlowStepInput, {
  minItems: 1,
  maxItems: MAX_STEPS,
  description: `the steps in order (1 to ${String(MAX_STEPS)}): each a task of \`kind\` titled \`title\`, due \`day\` (0 to ${String(MAX_STEP_DAY)}) days after the day a contact is added`,
})
const FlowName = Type.With(NonBlank(), { description: 'the flow name' })
const FlowStatus = Type.Enum(FLOW_STATUSES, { description: 'paused flows take no new contacts' })

/** POST /flows: a flow owned by the caller. */
export const FlowCreateBody = Type.Object({
  name: FlowName,
  steps: Steps,
  status: Type.Optional(Type.With(FlowStatus, { description: 'active (the default) or paused: paused flows take no new contacts' })),
}, {
  examples: [{
    name: 'Inbound follow-up',
    steps: [{ day: 0, kind: 'email', title: 'Thank-you email' }, { day: 2, kind: 'phonecall', title: 'Intro call' }],
  }],
})
export type FlowCreateBody = Static<typeof FlowCreateBody>

/** PUT /flows/:id: what is given changes; `steps` replaces the whole list. */
export const FlowUpdateBody = Type.Object({
  name: Type.Optional(FlowName),
  steps: Type.Optional(Steps),
  status: Type.Optional(FlowStatus),
}, { examples: [{ name: 'Inbound follow-up (short)', steps: [{ day: 0, kind: 'email', title: 'Thank-you email' }] }] })
export type FlowUpdateBody = Static<typeof FlowUpdateBody>

// Admin command line inputs, with their help.
export const FlowCreateInput = Type.Object({
  company: CompanyOption,
  user: Type.With(Id, { placeholder: 'ID', description: 'the owner, a user of the company' }),
  name: Type.With(NonBlank(), { placeholder: 'N', description: 'the flow name' }),
  steps: Type.With(NonBlank(4096), {
    placeholder: 'FILE|JSON',
    description:
      'a file holding a JSON array of {"day": 0.., "kind": "phonecall|email|linkedin|social|meeting", "title": "..."}, or that array itself',
  }),
  status: Type.Optional(Type.With(Type.Enum(FLOW_STATUSES), { placeholder: 'active|paused', description: 'the status (default active)' })),
})
export type FlowCreateInput = Static<typeof FlowCreateInput>

