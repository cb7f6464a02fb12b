import { Chunk, Effect, Option, Stream } from 'effect'
import { iso } from '../../engine/time'
import * as Contacts from '../../store/contacts'
import * as CustomFields from '../../store/customFields'
import { csv } from '../cells'
import { customValue, shownValues, toText } from '../customValues'
import { labelMap } from './contacts'

/**
 * The CSV export (spec 2 §4.4 `GET /contacts/export`): the list's filters, oldest first, read in
 * pages of `PAGE` by keyset and written page by page as CSV (`csv` of actors/cells.ts: formulas
 * inert), with a UTF-8 BOM so spreadsheets open it as UTF-8, and one column per contact custom
 * field (header = its key, as the import reads it back).
 */
export const PAGE = 2000
const BOM = new Uint8Array([0xef, 0xbb, 0xbf])
const BASE = ['id', ...Contacts.TEXT_FIELDS, 'labels', 'broadcast_opt_out', 'owner_id', 'created_at'] as const

const encoder = new TextEncoder()

/** The file as a stream of byte chunks: BOM and header, then one chunk per page of contacts. */
export const exportCsv = (workspaceId: number, filter: Contacts.ListFilter) =>
  Effect.gen(function* () {
    const [defs, labels] = yield* Effect.all([
      CustomFields.list(workspaceId, ['contact']),
      labelMap(workspaceId),
    ])
    const head = Stream.make(BOM, encoder.encode(csv([[...BASE, ...defs.map((d) => d.key)]])))
    const pages = Stream.paginateChunkEffect(undefined as Contacts.Cursor | undefined, (after) =>
      Effect.map(
        Contacts.list(workspaceId, filter, 'created_asc', {
          limit: PAGE,
          offset: 0,
          ...(after ? { after } : {}),
        }),
        (rows) => {
          const last = rows[rows.length - 1]
          const lines = rows.map((c) => {
            const custom = shownValues(defs, c.custom)
            return [
              c.id,
              c.name,
              c.phone ?? '',
              c.email ?? '',
              c.company ?? '',
              c.job_title ?? '',
              c.address ?? '',
              c.city ?? '',
              c.language ?? '',
              c.label_ids.flatMap((id) => labels.get(id)?.name ?? []).join(', '),
              c.broadcast_opt_out ? 'true' : 'false',
              c.owner_id ?? '',
              iso(c.created_at),
              ...defs.map((d) => toText(customValue(custom, d.key))),
            ]
          })
          const chunk = rows.length === 0 ? Chunk.empty<Uint8Array>() : Chunk.of(encoder.encode(csv(lines)))
          const next =
            rows.length === PAGE && last
              ? Option.some<Contacts.Cursor | undefined>({
                  v: last.sort_key,
                  id: last.id,
                })
              : Option.none()
          return [chunk, next] as const
        },
      ),
    )
    return Stream.concat(head, pages)
  })
