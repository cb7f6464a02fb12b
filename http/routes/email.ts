import { Effect, Schema } from 'effect'
import { grantSelectedMembers } from '../../actors/channels/grants'
import { presentEmail, presentSync, quotaOf } from '../../actors/channels/presenters'
import { ApiError, type FieldMessage, invalid, notFound } from '../../actors/errors'
import { IdFromString, Text } from '../../actors/fields'
import { addMessages, t } from '../../actors/i18n'
import { accessOf } from '../../connectors/email/access'
import {
  type Folders,
  type MailboxAccess,
  type Policy,
  probe,
  type Refusal,
  SignInRefused,
} from '../../connectors/email/mailbox'
import { nudge } from '../../connectors/email/nudge'
import { detect } from '../../connectors/email/providers'
import { Config } from '../../engine/config'
import { publishEvent } from '../../engine/events'
import { Log } from '../../engine/log'
import { encrypt } from '../../engine/secrets'
import * as Channels from '../../store/channels'
import * as Email from '../../store/email'
import { limitsOf } from '../../store/plans'
import { AutoReply, Hours } from '../channelSettings'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 1 §4.4, the `email` channel type: detect the provider, test a sign-in, connect, change
 * (re-tested), list folders, sync now. The passwords are sealed (engine/secrets) and never
 * answered; the mailbox itself is read by connectors/email/sessions.ts and written to by the
 * adapter in connectors/email/adapter.ts.
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
const Address = Schema.String.pipe(
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
const TestBody = Schema.Struct({ address: Address, password: Secret, ...Server })
const CreateBody = Schema.Struct({
  address: Address,
  password: Secret,
  ...Server,
  ...Options,
  history_days: Schema.optional(Schema.Literal(0, 3, 7, 30)),
})
const PatchBody = Schema.Struct({
  address: Schema.optional(Address),
  password: Schema.optional(Secret),
  ...Server,
  ...Options,
  hours: Schema.optional(Schema.NullOr(Hours)),
  auto_reply: Schema.optional(AutoReply),
})
const Id = Schema.Struct({ id: IdFromString })

// ---- Helpers ---------------------------------------------------------------------------------

const policyOf = Effect.map(Config, (cfg): Policy => ({ allowInsecure: cfg.emailAllowInsecure }))

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
const tryProbe = (access: MailboxAccess, smtpOwnPassword: boolean) =>
  Effect.gen(function* () {
    const policy = yield* policyOf
    const r = yield* Effect.promise(() =>
      probe(access, policy, smtpOwnPassword ? 'smtp_password' : 'password').then(
        (folders) => ({ folders }),
        (e: unknown) => ({ error: e }),
      ),
    )
    if ('folders' in r) return r.folders
    if (r.error instanceof SignInRefused) return yield* Effect.fail(invalid(refusalField(r.error.refusal)))
    return yield* Effect.fail(invalid({ imap_host: { key: 'field.email_unreachable' } }))
  })

interface ServerFields {
  readonly username?: string | undefined
  readonly imap_host?: string | undefined
  readonly imap_port?: number | undefined
  readonly imap_security?: Email.Security | undefined
  readonly smtp_host?: string | undefined
  readonly smtp_port?: number | undefined
  readonly smtp_security?: Email.Security | undefined
  readonly smtp_username?: string | null | undefined
  readonly smtp_password?: string | null | undefined
}

/** The servers of a new mailbox: what was given, the rest from the provider table. */
const resolveServers = (address: string, password: string, b: ServerFields) =>
  Effect.gen(function* () {
    const needsDetect = !b.imap_host || !b.smtp_host
    const d = needsDetect ? yield* Effect.promise(() => detect(address)) : null
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

/** Chosen folders must exist; the Sent folder defaults to the one flagged `\Sent`. */
const checkFolders = (
  found: Folders,
  chosen: readonly string[] | undefined,
  sent: string | null | undefined,
): { readonly folders: readonly string[]; readonly sent: string | null } | Record<string, FieldMessage> => {
  const problems: Record<string, FieldMessage> = {}
  const folders = [...new Set(chosen ?? [])].filter((f) => f.toUpperCase() !== 'INBOX')
  const unknown = folders.find((f) => !found.folders.includes(f))
  if (unknown !== undefined) problems.folders = { key: 'field.email_folder', params: { name: unknown } }
  if (sent !== undefined && sent !== null && !found.folders.includes(sent))
    problems.sent_folder = { key: 'field.email_folder', params: { name: sent } }
  if (Object.keys(problems).length > 0) return problems
  return { folders, sent: sent === undefined ? found.sent : sent }
}

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

const changed = (c: Channels.ChannelRow) =>
  publishEvent(`ws:${c.workspace_id}`, 'channel.updated', { channel_id: c.id, status: c.status })

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channels/email/detect',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary:
      'Provider of an address, suggested IMAP/SMTP servers and a hint (app password, unsupported suite)',
    body: Schema.Struct({ address: Address }),
    handler: ({ body, locale }) =>
      Effect.gen(function* () {
        const d = yield* Effect.promise(() => detect(body.address.trim()))
        return ok({
          provider: d.provider,
          supported: d.supported,
          imap: d.imap,
          smtp: d.smtp,
          hint: d.hint,
          hint_text: d.hint ? t(locale, `email.hint.${d.hint}`) : null,
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/email/test',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'IMAP and SMTP sign-in without sending; selectable folders and the Sent folder; per-field 422',
    body: TestBody,
    handler: ({ body }) =>
      Effect.gen(function* () {
        const access = yield* resolveServers(body.address.trim(), body.password, body)
        const found = yield* tryProbe(access, !!body.smtp_password)
        return ok({
          imap_host: access.imap.host,
          imap_port: access.imap.port,
          imap_security: access.imap.security,
          smtp_host: access.smtp.host,
          smtp_port: access.smtp.port,
          smtp_security: access.smtp.security,
          folders: found.folders,
          sent_folder: found.sent,
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/email',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Connect a mailbox (quota; an address lives in one workspace only, else 409)',
    body: CreateBody,
    handler: ({ workspace, body }) =>
      Effect.gen(function* () {
        const address = body.address.trim()
        // Checked again atomically on insert; first here so a taken address is not signed in to.
        if (yield* Email.addressTaken(address))
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'email.address_taken' }))
        const access = yield* resolveServers(address, body.password, body)
        const found = yield* tryProbe(access, !!body.smtp_password)
        const chosen = checkFolders(found, body.folders, body.sent_folder)
        if (!('folders' in chosen && Array.isArray(chosen.folders)))
          return yield* Effect.fail(invalid(chosen as Record<string, FieldMessage>))
        const picked = chosen as { folders: readonly string[]; sent: string | null }
        const made = yield* Email.createWithinQuota(
          workspace.id,
          limitsOf(workspace).channels,
          body.name?.trim() || address,
          {
            address,
            username: access.imap.user,
            passwordSealed: yield* seal(body.password),
            imapHost: access.imap.host,
            imapPort: access.imap.port,
            imapSecurity: access.imap.security,
            smtpHost: access.smtp.host,
            smtpPort: access.smtp.port,
            smtpSecurity: access.smtp.security,
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
        if (made._tag === 'QuotaFull')
          return yield* Effect.fail(new ApiError({ code: 'plan_required', message: 'channels.quota' }))
        if (made._tag === 'AddressTaken')
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'email.address_taken' }))
        yield* changed(made.channel)
        yield* grantSelectedMembers(body.grant_selected_members, made.channel)
        nudge()
        return created(presentEmail(made.channel, made.email), { quota: yield* quotaOf(workspace) })
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/channels/{id}/email',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Change the mailbox; server, username, password or folder changes are re-tested first',
    params: Id,
    body: PatchBody,
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        const { channel, email } = yield* emailChannelOr404(workspace.id, params.id)
        const before = yield* accessOf(email)
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
        const retest =
          address !== email.address ||
          JSON.stringify(access) !== JSON.stringify(before) ||
          body.folders !== undefined ||
          body.sent_folder !== undefined
        let folders: readonly string[] = email.folders
        let sent: string | null = email.sent_folder
        if (retest) {
          const found = yield* tryProbe(access, smtpOwn !== null)
          const chosen = checkFolders(
            found,
            body.folders ?? email.folders,
            body.sent_folder === undefined ? email.sent_folder : body.sent_folder,
          )
          if (!('folders' in chosen && Array.isArray(chosen.folders)))
            return yield* Effect.fail(invalid(chosen as Record<string, FieldMessage>))
          ;({ folders, sent } = chosen as { folders: readonly string[]; sent: string | null })
        }
        const updated = yield* Email.update(email.channel_id, {
          address,
          username,
          passwordSealed: body.password === undefined ? email.password_sealed : yield* seal(body.password),
          imapHost: access.imap.host,
          imapPort: access.imap.port,
          imapSecurity: access.imap.security,
          smtpHost: access.smtp.host,
          smtpPort: access.smtp.port,
          smtpSecurity: access.smtp.security,
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
        if (updated?._tag === 'AddressTaken')
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'email.address_taken' }))
        if (!updated) return yield* Effect.fail(notFound())
        const settings: Record<string, unknown> = {}
        if (body.hours !== undefined) settings.hours = body.hours
        if (body.auto_reply !== undefined) {
          const was = (channel.settings as { auto_reply?: Record<string, unknown> }).auto_reply ?? {}
          settings.auto_reply = {
            greeting_on: false,
            greeting: '',
            away_on: false,
            away: '',
            ...was,
            ...body.auto_reply,
          }
        }
        const row = yield* Channels.updateCommon(channel.id, {
          ...(body.name !== undefined ? { name: body.name.trim() } : {}),
          settings,
        })
        if (!row) return yield* Effect.fail(notFound())
        yield* changed(row)
        nudge()
        return ok(presentEmail(row, updated.email))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channels/{id}/email/folders',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Folders (signs in again) with a `selected` flag, plus the Sent folder',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { email } = yield* emailChannelOr404(workspace.id, params.id)
        const found = yield* tryProbe(yield* accessOf(email), email.smtp_password_sealed !== null)
        return ok({
          folders: found.folders.map((name) => ({ name, selected: email.folders.includes(name) })),
          sent_folder: email.sent_folder,
          detected_sent_folder: found.sent,
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channels/{id}/sync',
    access: 'A',
    permission: 'channels.manage',
    tag: 'Channels',
    summary: 'Check the mailbox now, skipping the pause after failed sign-ins; answers {sync, channel}',
    params: Id,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const { channel } = yield* emailChannelOr404(workspace.id, params.id)
        const email = yield* Email.requestSync(channel.id)
        if (!email) return yield* Effect.fail(notFound())
        nudge()
        return ok({ sync: { requested: true, ...presentSync(email) }, channel: presentEmail(channel, email) })
      }),
  }),
]
