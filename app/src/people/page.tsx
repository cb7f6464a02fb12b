import type { PageProps } from '../routes'
import { MembersPage } from './MembersPage'
import { RolePage, RolesPage } from './RolesPages'
import { TeamPage, TeamsPage } from './TeamsPages'

/** The people pages' entry (routes.ts): one chunk for members, roles and teams. */
const byId = (params: PageProps['params']) => (params.id && /^\d+$/.test(params.id) ? Number(params.id) : 0)

export const Members = () => <MembersPage />
export const Roles = ({ params }: PageProps) => (params.id ? <RolePage id={byId(params)} /> : <RolesPage />)
export const Teams = ({ params }: PageProps) => (params.id ? <TeamPage id={byId(params)} /> : <TeamsPage />)
