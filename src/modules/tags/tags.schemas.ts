import { Type, type Static } from 'typebox'
import { NonBlank, Timestamps, UnpagedList } from '../../http/schemas.js'

export const TAG_COLOR_PATTERN = '^#(?:[0-9A-Fa-f]{3}){1,2}$'

export const Tag = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    color: Type.String({ description: '#rgb or #rrggbb' }),
    ...Timestamps,
  },
  {
    $id: 'Tag',
    description: 'A tag contacts can carry',
    examples: [
      { id: 3, name: 'Hot', color: '#e11d48', created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:00:00.000Z' },
    ],
  },
)
export type Tag = Static<typeof Tag>

export const TagBody = Type.Object(
  {
    name: NonBlank(),
    color: Type.String({ pattern: TAG_COLOR_PATTERN, description: 'hex colour: #rgb or #rrggbb' }),
  },
  { examples: [{ name: 'Hot', color: '#e11d48' }] },
)
export type TagBody = Static<typeof TagBody>

export const TagsList = UnpagedList(Tag, 'TagList', 'Every tag of your company')
