import { Effect, Schema } from 'effect'
import { Log } from '../../engine/log'
import { encrypt } from '../../engine/secrets'
import * as Channels from '../../store/channels'
import * as Email from '../../store/email'
import { limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import { ApiError, type FieldMessage, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { Text } from '../fields'
import { addMessages, type Locale, t } from '../i18n'
import { AutoReply, Hours, quotaFull, updateCommon } from './channels'
import { grantSelectedMembers } from './grants'
import {
  type Folders,
  type MailboxAccess,
  MailServers,
  type MailServersShape,
  type Refusal,
} from './MailServers'
import { presentEmail, presentSync, quotaOf } from './presenters'

/**
 * The `email` channel type of spec 1 §4.4: detect the provider, test a sign-in, connect, change
 * (re-tested), list folders, sync now. The passwords are sealed (engine/secrets) and never
 * answered. The servers are reached through the MailServers port; the mailbox itself is read by
 * connectors/email/sessions.ts, which a nudge wakes after every change here.
 */
addMessages({
  'email.hint.app_password': {
    en: 'This provider needs an app password: create one in your account security settings and use it instead of your normal password.',
    id: 'Penyedia ini memerlukan sandi aplikasi: buat di pengaturan keamanan akun Anda dan gunakan sebagai ganti sandi biasa.',
  },
  'email.hint.enterprise_unsupported': {
    en: 'Microsoft 365 work mailboxes do not accept IMAP passwords and are not supported.',
    id: 'Kotak surat kerja Microsoft 365 tidak menerima sandi IMAP dan belum didukung.',
  },
  'email.hint.imap_enable': {
    en: 'Turn on IMAP access in the mail settings of your account first.',
    id: 'Aktifkan dulu akses IMAP di pengaturan email akun Anda.',
  },
  'email.secrets_unavailable': {
    en: 'This server cannot store mailbox passwords: its SECRETS_KEY is not set.',
    id: 'Server ini tidak dapat menyimpan sandi kotak surat: SECRETS_KEY belum diatur.',
  },
  'email.address_taken': {
    en: 'This address is already connected in a workspace.',
    id: 'Alamat ini sudah terhubung di sebuah workspace.',
  },
  'field.email_auth': {
    en: 'The server refused this username or password.',
    id: 'Server menolak nama pengguna atau sandi ini.',
  },
  'field.email_unreachable': {
    en: 'The server could not be reached.',
    id: 'Server tidak dapat dihubungi.',
  },
  'field.email_not_allowed': {
    en: 'Must be a mail server on a public address.',
    id: 'Harus server email pada alamat publik.',
  },
  'field.email_tls': {
    en: 'A secure connection to the server failed.',
    id: 'Koneksi aman ke server gagal.',
  },
  'field.email_folder': {
    en: 'Unknown folder: {name}.',
    id: 'Folder tidak dikenal: {name}.',
  },
  'field.email_address': {
    en: 'Must be an e-mail address.',
    id: 'Harus alamat email.',
  },
})

// ---- Request fields --------------------------------------------------------------------------

const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/
export const Address = Schema.String.pipe(
  Schema.maxLength(254),
  Schema.filter((s) => EMAIL.test(s.trim()), { message: () => 'field.email_address' }),
)
const Host = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(253),
  Schema.pattern(/^[A-Za-z0-9.:_-]+$/),
)
const Port = Schema.Number.pipe(Schema.int(), Schema.between(1, 65535))
const Sec = Schema.Literal('ssl', 'starttls')
const Secret = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))
const Folder = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(300))
/** An address (`noreply@shop.example`) or a whole domain (`@shop.example`): mail from it is not imported. */
const IgnoreRule = Schema.String.pipe(
  Schema.minLength(2),
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@]*@[^\s@]+$/),
)

const Server = {
  username: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(254))),
  imap_host: Schema.optional(Host),
  imap_port: Schema.optional(Port),
  imap_security: Schema.optional(Sec),
  smtp_host: Schema.optional(Host),
  smtp_port: Schema.optional(Port),
  smtp_security: Schema.optional(Sec),
  smtp_username: Schema.optional(
    Schema.NullOr(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(254))),
  ),
  smtp_password: Schema.optional(Schema.NullOr(Secret)),
}
const Options = {
  name: Schema.optional(Text(1, 100)),
  folders: Schema.optional(Schema.Array(Folder).pipe(Schema.maxItems(50))),
  sent_folder: Schema.optional(Schema.NullOr(Folder)),
  read_sent: Schema.optional(Schema.Boolean),
  save_sent: Schema.optional(Schema.Boolean),
  sender_name: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  sender_with_agent: Schema.optional(Schema.Boolean),
  signature_html: Schema.optional(Schema.String.pipe(Schema.maxLength(20_000))),
  ignore: Schema.optional(Schema.Array(IgnoreRule).pipe(Schema.maxItems(100))),
  grant_selected_members: Schema.optional(Schema.Boolean),
}
export const TestBody = Schema.Struct({ address: Address, password: Secret, ...Server })
export const CreateBody = Schema.Struct({
  address: Address,
  password: Secret,
  ...Server,
  ...Options,
  history_days: Schema.optional(Schema.Literal(0, 3, 7, 30)),
})
export const PatchBody = Schema.Struct({
  address: Schema.optional(Address),
  password: Schema.optional(Secret),
  ...Server,
  ...Options,
  hours: Schema.optional(Schema.NullOr(Hours)),
  auto_reply: Schema.optional(AutoReply),
})

// ---- Rules -----------------------------------------------------------------------------------

const addressTaken = () => new ApiError({ code: 'conflict', message: 'email.address_taken' })

const refusalField = (r: Refusal): Record<string, FieldMessage> => ({
  [r.field]: {
    key:
      r.reason === 'auth'
        ? 'field.email_auth'
        : r.reason === 'not_allowed'
          ? 'field.email_not_allowed'
          : r.reason === 'tls'
            ? 'field.email_tls'
            : 'field.email_unreachable',
  },
})

/** Signs in to both servers; a refusal is a 422 on the field to correct. */
const signIn = (servers: MailServersShape, access: MailboxAccess, smtpOwnPassword: boolean) =>
  servers.signIn(access, smtpOwnPassword).pipe(Effect.mapError((r) => invalid(refusalField(r))))

type ServerFields = { readonly [K in keyof typeof Server]?: Schema.Schema.Type<(typeof Server)[K]> }

/** The servers of a new mailbox: what was given, the rest from the provider table. */
const resolveServers = (servers: MailServersShape, address: string, password: string, b: ServerFields) =>
  Effect.gen(function* () {
    const d = !b.imap_host || !b.smtp_host ? yield* servers.detect(address) : null
    const username = b.username?.trim() || address
    const imapSecurity = b.imap_security ?? d?.imap.security ?? 'ssl'
    const smtpSecurity = b.smtp_security ?? d?.smtp.security ?? 'ssl'
    return {
      address,
      imap: {
        host: b.imap_host ?? d!.imap.host,
        port: b.imap_port ?? (b.imap_host ? (imapSecurity === 'ssl' ? 993 : 143) : d!.imap.port),
        security: imapSecurity,
        user: username,
        pass: password,
      },
      smtp: {
        host: b.smtp_host ?? d!.smtp.host,
        port: b.smtp_port ?? (b.smtp_host ? (smtpSecurity === 'ssl' ? 465 : 587) : d!.smtp.port),
        security: smtpSecurity,
        user: b.smtp_username?.trim() || username,
        pass: b.smtp_password ?? password,
      },
    } satisfies MailboxAccess
  })

/** Chosen folders must exist (else 422 naming the first unknown); the Sent folder defaults to the one flagged `\Sent`. */
const checkFolders = (
  found: Folders,
  chosen: readonly string[] | undefined,
  sent: string | null | undefined,
) => {
  const problems: Record<string, FieldMessage> = {}
  const folders = [...new Set(chosen ?? [])].filter((f) => f.toUpperCase() !== 'INBOX')
  const unknown = folders.find((f) => !found.folders.includes(f))
  if (unknown !== undefined) problems.folders = { key: 'field.email_folder', params: { name: unknown } }
  if (sent !== undefined && sent !== null && !found.folders.includes(sent))
    problems.sent_folder = { key: 'field.email_folder', params: { name: sent } }
  return Object.keys(problems).length > 0
    ? Effect.fail(invalid(problems))
    : Effect.succeed({ folders, sent: sent === undefined ? found.sent : sent })
}

/** The servers of an access as the mailbox row stores them. */
const serversOf = (access: MailboxAccess) => ({
  imapHost: access.imap.host,
  imapPort: access.imap.port,
  imapSecurity: access.imap.security,
  smtpHost: access.smtp.host,
  smtpPort: access.smtp.port,
  smtpSecurity: access.smtp.security,
})

const emailChannelOr404 = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    const channel = yield* Channels.liveInWorkspace(workspaceId, id)
    const email = channel?.type === 'email' ? yield* Email.byChannel(channel.id) : null
    if (!channel || !email) return yield* Effect.fail(notFound())
    return { channel, email }
  })

/** A node without a usable key (a cluster without SECRETS_KEY) cannot store a password: 503, logged. */
const seal = (s: string) =>
  encrypt(s).pipe(
    Effect.tapError((e) =>
      Effect.flatMap(Log, (log) =>
        Effect.sync(() => log.error('cannot seal a secret', { reason: e.reason })),
      ),
    ),
    Effect.mapError(() => new ApiError({ code: 'unavailable', message: 'email.secrets_unavailable' })),
  )

/** Agents hear of it; mailbox changes need no credentials re-read nor actor reload. */
const announce = (c: Channels.ChannelRow) =>
  publish(topics.workspace(c.workspace_id), 'channel.updated', { channel_id: c.id, status: c.status })

// ---- Operations ------------------------------------------------------------------------------

/** The provider of an address, its suggested servers and a hint in the caller's language. */
export const detect = (address: string, locale: Locale) =>
  Effect.map(
    Effect.flatMap(MailServers, (servers) => servers.detect(address.trim())),
    (d) => ({
      provider: d.provider,
      supported: d.supported,
      imap: d.imap,
      smtp: d.smtp,
      hint: d.hint,
      hint_text: d.hint ? t(locale, `email.hint.${d.hint}`) : null,
    }),
  )

/** Signs in to both servers without sending; the servers used, the folders and the Sent folder. */
export const test = (body: typeof TestBody.Type) =>
  Effect.gen(function* () {
    const servers = yield* MailServers
    const access = yield* resolveServers(servers, body.address.trim(), body.password, body)
    const found = yield* signIn(servers, access, !!body.smtp_password)
    return {
      imap_host: access.imap.host,
      imap_port: access.imap.port,
      imap_security: access.imap.security,
      smtp_host: access.smtp.host,
      smtp_port: access.smtp.port,
      smtp_security: access.smtp.security,
      folders: found.folders,
      sent_folder: found.sent,
    }
  })

/** Connects a mailbox after a successful sign-in (quota; an address lives in one workspace only). */
export const connect = (workspace: WorkspaceRow, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const servers = yield* MailServers
    const address = body.address.trim()
    // Checked again atomically on insert; first here so a taken address is not signed in to.
    if (yield* Email.addressTaken(address)) return yield* Effect.fail(addressTaken())
    const access = yield* resolveServers(servers, address, body.password, body)
    const found = yield* signIn(servers, access, !!body.smtp_password)
    const picked = yield* checkFolders(found, body.folders, body.sent_folder)
    const made = yield* Email.createWithinQuota(
      workspace.id,
      limitsOf(workspace).channels,
      body.name?.trim() || address,
      {
        address,
        username: access.imap.user,
        passwordSealed: yield* seal(body.password),
        ...serversOf(access),
        smtpUsername: body.smtp_username?.trim() || null,
        smtpPasswordSealed: body.smtp_password ? yield* seal(body.smtp_password) : null,
        folders: picked.folders,
        sentFolder: picked.sent,
        readSent: body.read_sent ?? false,
        saveSent: body.save_sent ?? true,
        historyDays: body.history_days ?? 7,
        senderName: body.sender_name?.trim() ?? '',
        senderWithAgent: body.sender_with_agent ?? false,
        signatureHtml: body.signature_html ?? '',
        ignore: (body.ignore ?? []).map((r) => r.toLowerCase()),
      },
    )
    if (made._tag === 'QuotaFull') return yield* Effect.fail(quotaFull())
    if (made._tag === 'AddressTaken') return yield* Effect.fail(addressTaken())
    yield* announce(made.channel)
    yield* grantSelectedMembers(body.grant_selected_members, made.channel)
    servers.nudge()
    return { channel: presentEmail(made.channel, made.email), quota: yield* quotaOf(workspace) }
  })

/** Changes a mailbox; a change of server, username, password or folders is signed in with first. */
export const update = (workspace: WorkspaceRow, id: number, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const servers = yield* MailServers
    const { channel, email } = yield* emailChannelOr404(workspace.id, id)
    const before = yield* servers.accessOf(email)
    const address = body.address?.trim() ?? email.address
    const password = body.password ?? before.imap.pass
    const username = body.username?.trim() ?? email.username
    const smtpUsername =
      body.smtp_username === undefined ? email.smtp_username : body.smtp_username?.trim() || null
    const smtpOwn =
      body.smtp_password === undefined
        ? email.smtp_password_sealed
          ? before.smtp.pass
          : null
        : body.smtp_password
    const access: MailboxAccess = {
      address,
      imap: {
        host: body.imap_host ?? email.imap_host,
        port: body.imap_port ?? email.imap_port,
        security: body.imap_security ?? email.imap_security,
        user: username,
        pass: password,
      },
      smtp: {
        host: body.smtp_host ?? email.smtp_host,
        port: body.smtp_port ?? email.smtp_port,
        security: body.smtp_security ?? email.smtp_security,
        user: smtpUsername ?? username,
        pass: smtpOwn ?? password,
      },
    }
    // A server the mailbox did not use before gets a password only when this request gives it:
    // the stored one would otherwise go to any host a channel manager names, and be read there.
    const moved = (e: { host: string; port: number }, host: string, port: number) =>
      e.host.toLowerCase() !== host.toLowerCase() || e.port !== port
    const unproven: Record<string, FieldMessage> = {}
    if (moved(access.imap, email.imap_host, email.imap_port) && body.password === undefined)
      unproven.password = { key: 'field.required' }
    if (moved(access.smtp, email.smtp_host, email.smtp_port)) {
      const field = smtpOwn !== null ? 'smtp_password' : 'password'
      if (body[field] === undefined) unproven[field] = { key: 'field.required' }
    }
    if (Object.keys(unproven).length > 0) return yield* Effect.fail(invalid(unproven))
    const retest =
      address !== email.address ||
      JSON.stringify(access) !== JSON.stringify(before) ||
      body.folders !== undefined ||
      body.sent_folder !== undefined
    const { folders, sent } = retest
      ? yield* checkFolders(
          yield* signIn(servers, access, smtpOwn !== null),
          body.folders ?? email.folders,
          body.sent_folder === undefined ? email.sent_folder : body.sent_folder,
        )
      : { folders: email.folders, sent: email.sent_folder }
    const updated = yield* Email.update(email.channel_id, {
      address,
      username,
      passwordSealed: body.password === undefined ? email.password_sealed : yield* seal(body.password),
      ...serversOf(access),
      smtpUsername,
      smtpPasswordSealed:
        body.smtp_password === undefined
          ? email.smtp_password_sealed
          : body.smtp_password === null
            ? null
            : yield* seal(body.smtp_password),
      folders,
      sentFolder: sent,
      readSent: body.read_sent ?? email.read_sent,
      saveSent: body.save_sent ?? email.save_sent,
      senderName: body.sender_name?.trim() ?? email.sender_name,
      senderWithAgent: body.sender_with_agent ?? email.sender_with_agent,
      signatureHtml: body.signature_html ?? email.signature_html,
      ignore: body.ignore?.map((r) => r.toLowerCase()) ?? email.ignore,
    })
    if (updated?._tag === 'AddressTaken') return yield* Effect.fail(addressTaken())
    if (!updated) return yield* Effect.fail(notFound())
    const row = yield* updateCommon(channel, body)
    if (!row) return yield* Effect.fail(notFound())
    yield* announce(row)
    servers.nudge()
    return presentEmail(row, updated.email)
  })

/** The mailbox's folders (signing in again), which are read, and the Sent folder. */
export const folders = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const servers = yield* MailServers
    const { email } = yield* emailChannelOr404(workspace.id, id)
    const found = yield* signIn(servers, yield* servers.accessOf(email), email.smtp_password_sealed !== null)
    return {
      folders: found.folders.map((name) => ({ name, selected: email.folders.includes(name) })),
      sent_folder: email.sent_folder,
      detected_sent_folder: found.sent,
    }
  })

/** Asks for a sync now, skipping the pause after failed sign-ins. */
export const sync = (workspace: WorkspaceRow, id: number) =>
  Effect.gen(function* () {
    const servers = yield* MailServers
    const { channel } = yield* emailChannelOr404(workspace.id, id)
    const email = yield* Email.requestSync(channel.id)
    if (!email) return yield* Effect.fail(notFound())
    servers.nudge()
    return { sync: { requested: true, ...presentSync(email) }, channel: presentEmail(channel, email) }
  })
