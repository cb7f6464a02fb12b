// The inbox list on a large workspace: GET /v1/interactions with the filters agents use most,
// round-robin, with constant virtual users. Each request is tagged with its filter so the summary
// gives a p99 per filter. Env: BASE, AUTH (API key), CHANNEL, VUS, DURATION.

import { check } from 'k6'
import http from 'k6/http'

const filters = {
  all: '',
  tab_new: 'tab=new',
  tab_solved: 'tab=solved',
  channel: `channel_ids=${__ENV.CHANNEL}`,
  unassigned: 'assignee=none',
  search: 'q=Customer%2012345',
  created: 'created_from=2026-01-01&created_to=2026-12-31',
  page_20: 'page=20',
}
const names = Object.keys(filters)

export const options = {
  scenarios: {
    load: { executor: 'constant-vus', vus: Number(__ENV.VUS || 16), duration: __ENV.DURATION || '20s' },
  },
  summaryTrendStats: ['avg', 'med', 'p(90)', 'p(99)', 'max'],
  discardResponseBodies: true,
  thresholds: Object.fromEntries(names.map((n) => [`http_req_duration{filter:${n}}`, ['p(99)<100000']])),
}

const params = (name) => ({ headers: { Authorization: `Bearer ${__ENV.AUTH}` }, tags: { filter: name } })

export default function () {
  const name = names[(__ITER + __VU) % names.length]
  const res = http.get(`${__ENV.BASE}/v1/interactions?${filters[name]}`, params(name))
  check(res, { 'status 200': (r) => r.status === 200 })
}
