import { ApiError } from '../kit'
import { FailNotice, Notice } from '../kit/ui'

/**
 * A failed call on the admin pages: a refusal (no permission, the plan, a limit, a state) is the
 * server's sentence alone, which already says what was refused; anything else as the kit says it.
 */
export const Failure = ({ error }: { error: unknown }) =>
  error instanceof ApiError && [402, 403, 404, 409, 423].includes(error.status) ? (
    <Notice kind="bad">{error.message}</Notice>
  ) : (
    <FailNotice error={error} />
  )
