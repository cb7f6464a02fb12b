/** Plans of the social service: the API needs an active Pro plan (spec 3 §5). */
export type Plan = 'free' | 'pro'
export const plans: readonly Plan[] = ['free', 'pro']
