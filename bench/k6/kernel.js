// GET a URL as fast as the server answers, with constant virtual users.
// Env: URL, AUTH (optional bearer), VUS, DURATION.

import { check } from 'k6'
import http from 'k6/http'

export const options = {
  scenarios: {
    load: {
      executor: 'constant-vus',
      vus: Number(__ENV.VUS || 64),
      duration: __ENV.DURATION || '20s',
    },
  },
  summaryTrendStats: ['avg', 'med', 'p(90)', 'p(99)', 'max'],
  discardResponseBodies: true,
}

const params = __ENV.AUTH ? { headers: { Authorization: `Bearer ${__ENV.AUTH}` } } : {}

export default function () {
  const res = http.get(__ENV.URL, params)
  check(res, { 'status 200': (r) => r.status === 200 })
}
