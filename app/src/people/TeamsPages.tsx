import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, can, failFields, failText, go, got, Link, useWorkspaceEvents } from '../kit'
import { ConfirmButton, Notice, Panel, SelectField, TextAreaField, TextField } from '../kit/ui'
import { SettingsPage } from '../settings/frame'
import { CheckList, FormEnd, Loaded, useSubmit } from './common'
import { ensureStyles, useTr } from './kit'
import type { Member, Team, TeamType } from './types'

const TYPES = ['frontline', 'backoffice'] as const

/** The workspace's active members to put in teams (their user ids), for managers only. */
const loadMembers = async () =>
  can('settings.members') ? (await got<Member[]>(api.get('/v1/members'))).data : []

/** Active members (and any disabled one already in the team), named; the e-mail tells namesakes apart. */
const memberOptions = (members: readonly Member[], keep: readonly number[]) => {
  const shown = members.filter((m) => m.status === 'active' || keep.includes(m.user.id))
  const twice = (name: string) => shown.filter((m) => m.user.name === name).length > 1
  return shown.map(
    (m) => [m.user.id, twice(m.user.name) ? `${m.user.name} (${m.user.email})` : m.user.name] as const,
  )
}

/**
 * `/app/settings/teams`: frontline and back-office teams with their members; a new team (name,
 * type, members) for who manages members. Everyone else may look, not change.
 */
export const TeamsPage = () => {
  ensureStyles()
  const tr = useTr()
  const [teams, setTeams] = useState<readonly Team[] | null>(null)
  const [members, setMembers] = useState<readonly Member[]>([])
  const [error, setError] = useState<unknown>(null)
  const [creating, setCreating] = useState(false)
  const manage = can('settings.members')
  const load = () =>
    Promise.all([got<Team[]>(api.get('/v1/teams')), loadMembers()]).then(
      ([t, m]) => {
        setTeams(t.data)
        setMembers(m)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['teams.changed', 'members.changed'], load)
  return (
    <SettingsPage
      title={tr('pp.teams.title')}
      testId="people-teams"
      actions={
        manage && teams && !creating ? (
          <button type="button" class="k-btn k-primary" onClick={() => setCreating(true)}>
            {tr('pp.teams.new')}
          </button>
        ) : null
      }
    >
      <Loaded error={error} ready={teams !== null}>
        {() => (
          <div class="k-stack">
            {manage ? null : <p class="k-muted">{tr('pp.teams.readonly')}</p>}
            {creating ? <NewTeam members={members} onClose={() => setCreating(false)} /> : null}
            {TYPES.map((type) => {
              const list = teams!.filter((t) => t.type === type)
              return (
                <Panel key={type} title={tr(`pp.teams.${type}`)} id={`pp-teams-${type}`}>
                  <p class="k-muted">{tr(`pp.teams.${type}_hint`)}</p>
                  {list.length === 0 ? (
                    <p class="k-muted">{tr('pp.teams.empty')}</p>
                  ) : (
                    <div class="k-table-wrap">
                      <table
                        class="k-table"
                        aria-labelledby={`pp-teams-${type}`}
                        data-testid={`teams-${type}`}
                      >
                        <thead>
                          <tr>
                            <th scope="col">{tr('pp.teams.col.name')}</th>
                            <th scope="col">{tr('pp.teams.col.members')}</th>
                          </tr>
                        </thead>
                        <tbody>
                          {list.map((t) => (
                            <tr key={t.id} data-team-id={t.id}>
                              <td>
                                {manage ? (
                                  <Link to={`/settings/teams/${t.id}`}>{t.name}</Link>
                                ) : (
                                  <strong>{t.name}</strong>
                                )}
                                {t.description ? <span class="pp-email">{t.description}</span> : null}
                              </td>
                              <td data-col="members">{t.members.map((m) => m.name).join(', ') || '—'}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  )}
                </Panel>
              )
            })}
          </div>
        )}
      </Loaded>
    </SettingsPage>
  )
}

interface TeamDraft {
  readonly name: string
  readonly description: string
  readonly member_ids: readonly number[]
}

/** Name, (what `children` adds), description and the member list: a new team's and an existing one's. */
const TeamFields = (props: {
  value: TeamDraft
  onValue: (v: TeamDraft) => void
  members: readonly Member[]
  keep: readonly number[]
  fields: Readonly<Record<string, string>>
  children?: ComponentChildren
}) => {
  const tr = useTr()
  const v = props.value
  return (
    <>
      <TextField
        label={tr('pp.team.name')}
        name="name"
        value={v.name}
        onValue={(name) => props.onValue({ ...v, name })}
        error={props.fields.name}
        maxLength={100}
        required
      />
      {props.children}
      <TextAreaField
        label={tr('pp.team.description')}
        name="description"
        value={v.description}
        onValue={(description) => props.onValue({ ...v, description })}
        error={props.fields.description}
        maxLength={500}
        rows={2}
      />
      <CheckList
        legend={tr('pp.team.members')}
        name="member_ids"
        options={memberOptions(props.members, props.keep)}
        chosen={v.member_ids}
        onChosen={(member_ids) => props.onValue({ ...v, member_ids })}
        error={props.fields.member_ids}
      />
    </>
  )
}

const NewTeam = (props: { members: readonly Member[]; onClose: () => void }) => {
  const tr = useTr()
  const [draft, setDraft] = useState<TeamDraft>({ name: '', description: '', member_ids: [] })
  const [type, setType] = useState<TeamType>('frontline')
  const { fail, busy, run, fields } = useSubmit()
  const submit = async (e: Event) => {
    e.preventDefault()
    return run(async () => {
      const r = await got<Team>(
        api.post('/v1/teams', {
          body: {
            name: draft.name.trim(),
            type,
            description: draft.description,
            member_ids: [...draft.member_ids],
          },
        }),
      )
      go(`/settings/teams/${r.data.id}`)
    })
  }
  return (
    <form class="k-form k-panel" onSubmit={submit} aria-labelledby="pp-new-team" data-testid="new-team">
      <h2 id="pp-new-team">{tr('pp.teams.new')}</h2>
      <TeamFields value={draft} onValue={setDraft} members={props.members} keep={[]} fields={fields}>
        <SelectField
          label={tr('pp.team.type')}
          name="type"
          value={type}
          options={TYPES.map((t) => [t, tr(`pp.team.type.${t}`)] as const)}
          onValue={(v) => setType(v as TeamType)}
          error={fields.type}
        />
      </TeamFields>
      <FormEnd fail={fail} busy={busy} label={tr('pp.team.create')} onCancel={props.onClose} />
    </form>
  )
}

/**
 * `/app/settings/teams/:id`: name, description and the whole member list; the type shown, fixed.
 * Deleting a team that still has members or data asks for a replacement of the same type.
 */
export const TeamPage = ({ id }: { id: number }) => {
  ensureStyles()
  const tr = useTr()
  const [team, setTeam] = useState<Team | null>(null)
  const [others, setOthers] = useState<readonly Team[]>([])
  const [members, setMembers] = useState<readonly Member[]>([])
  const [error, setError] = useState<unknown>(null)
  const load = () =>
    Promise.all([
      got<Team>(api.get('/v1/teams/{id}', { path: { id } })),
      got<Team[]>(api.get('/v1/teams')),
      loadMembers(),
    ]).then(
      ([t, all, m]) => {
        setTeam(t.data)
        setOthers(all.data.filter((x) => x.type === t.data.type && x.id !== t.data.id))
        setMembers(m)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    setTeam(null)
    void load()
  }, [id])
  return (
    <SettingsPage title={team?.name ?? tr('pp.teams.title')} testId="people-team">
      <Link class="k-back" to="/settings/teams">
        ← {tr('pp.team.back')}
      </Link>
      <Loaded error={error} ready={team !== null}>
        {() => <TeamForm key={team!.id} team={team!} others={others} members={members} onSaved={load} />}
      </Loaded>
    </SettingsPage>
  )
}

const TeamForm = (props: {
  team: Team
  others: readonly Team[]
  members: readonly Member[]
  onSaved: () => void
}) => {
  const tr = useTr()
  const t = props.team
  const manage = can('settings.members')
  const [draft, setDraft] = useState<TeamDraft>({
    name: t.name,
    description: t.description,
    member_ids: t.member_ids,
  })
  const { fail, busy, run, fields } = useSubmit()
  const [note, setNote] = useState<{ kind: 'ok' | 'bad'; text: string } | null>(null)
  const [needsReplacement, setNeedsReplacement] = useState(false)
  const [replacement, setReplacement] = useState(String(props.others[0]?.id ?? ''))
  const typeName = tr(`pp.team.type.${t.type}`)

  const save = async (e: Event) => {
    e.preventDefault()
    setNote(null)
    return run(async () => {
      await api.patch('/v1/teams/{id}', {
        path: { id: t.id },
        body: { name: draft.name.trim(), description: draft.description, member_ids: [...draft.member_ids] },
      })
      setNote({ kind: 'ok', text: tr('pp.saved') })
      props.onSaved()
    })
  }
  const remove = async (replacementId?: number) => {
    setNote(null)
    try {
      await api.delete('/v1/teams/{id}', {
        path: { id: t.id },
        ...(replacementId ? { query: { replacement_id: replacementId } } : {}),
      })
      go('/settings/teams')
    } catch (err) {
      if (failFields(err).replacement_id && replacementId === undefined) setNeedsReplacement(true)
      else setNote({ kind: 'bad', text: failFields(err).replacement_id ?? failText(err) })
    }
  }
  return (
    <div class="k-stack">
      <form class="k-form k-panel" onSubmit={save} aria-labelledby="pp-team" data-testid="team-form">
        <h2 id="pp-team">{t.name}</h2>
        <p>
          <strong>{tr('pp.team.type')}:</strong> <span data-testid="team-type">{typeName}</span>{' '}
          <span class="k-muted">({tr('pp.team.type_fixed')})</span>
        </p>
        {manage ? (
          <>
            <TeamFields
              value={draft}
              onValue={setDraft}
              members={props.members}
              keep={t.member_ids}
              fields={fields}
            />
            {note ? <Notice kind={note.kind}>{note.text}</Notice> : null}
            <FormEnd fail={fail} busy={busy} label={tr('pp.save')} />
          </>
        ) : (
          <>
            {t.description ? <p>{t.description}</p> : null}
            <p>{t.members.map((m) => m.name).join(', ') || '—'}</p>
          </>
        )}
      </form>
      {manage ? (
        <section class="k-panel" aria-labelledby="pp-team-delete" data-testid="team-delete">
          <h2 id="pp-team-delete">{tr('pp.team.delete')}</h2>
          {needsReplacement ? (
            props.others.length === 0 ? (
              <Notice kind="bad">{tr('pp.team.replacement_none', { type: typeName })}</Notice>
            ) : (
              <>
                <Notice kind="info">{tr('pp.team.replacement_why', { type: typeName })}</Notice>
                <SelectField
                  label={tr('pp.team.replacement')}
                  name="replacement_id"
                  value={replacement}
                  options={props.others.map((o) => [String(o.id), o.name] as const)}
                  onValue={setReplacement}
                />
                <div class="k-row">
                  <ConfirmButton
                    label={tr('pp.team.delete_move')}
                    question={tr('pp.team.delete_q', { name: t.name })}
                    onConfirm={() => remove(Number(replacement))}
                  />
                </div>
              </>
            )
          ) : (
            <div class="k-row">
              <ConfirmButton
                label={tr('pp.team.delete')}
                question={tr('pp.team.delete_q', { name: t.name })}
                onConfirm={() => remove()}
              />
            </div>
          )}
        </section>
      ) : null}
    </div>
  )
}
