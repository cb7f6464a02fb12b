/*
 * Kotak live chat: the chat page inside the widget's iframe. Same origin as the API, so every
 * call carries the visitor token as a bearer credential and no CORS is involved. Plain browser
 * code, no dependencies. The loader tells it when the panel opens and closes (postMessage); while
 * open it beats `seen` every 30 seconds, which agents see as `visitor.online`.
 *
 * Its own texts are English or Indonesian: the embed code's `data-kotak-locale` (passed on as
 * `?locale=`), else the channel's `locale` setting, else the first of the browser's languages that
 * is one of the two (English when none is). The owner's texts stay as typed; those still at their
 * English default come in the visitor's language (`default_texts`). Every call says the language
 * in `X-Locale`, so the server's messages (errors, refusals) come in it too.
 */
;(() => {
  const app = document.getElementById('app')
  const key = app.getAttribute('data-key')
  const params = new URLSearchParams(location.search)
  const page = params.get('page') || ''
  const api = '/v1/livechat/' + encodeURIComponent(key)
  const store = 'kotak-livechat:' + key
  const FONTS = {
    system: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
    'sans-serif': 'Helvetica,Arial,sans-serif',
    serif: 'Georgia,"Times New Roman",serif',
    monospace: 'ui-monospace,Menlo,Consolas,monospace',
    rounded: '"Nunito","Varela Round",system-ui,sans-serif',
  }
  const TEXTS = {
    en: {
      close: 'Close',
      name: 'Name',
      email: 'E-mail',
      phone: 'Phone',
      optional: '(optional)',
      fill_in: 'Please fill in: {fields}.',
      consent_needed: 'Please accept the terms to start.',
      start_failed: 'Could not start the chat.',
      offline: 'No connection. Please try again.',
      away_form: 'We are away right now. Leave your details and a message: we will reply by e-mail.',
      away_form_email:
        'We are away right now. Leave your e-mail and a message and we will reply there, or come back to this page later.',
      away_chat: 'We are away right now; we will reply by e-mail if you leave.',
      away_chat_no_email: 'We are away right now; leave a message and come back to this page for our reply.',
      placeholder: 'Write a message…',
      message: 'Message',
      send: 'Send',
      attach: 'Attach a file',
      sending: 'Sending…',
      sent: 'Sent',
      read: 'Read',
      not_sent: 'Not sent',
      removed: 'Message removed',
      file: 'file',
      joined: '{name} joined the chat',
      queue: 'You are number {n} in the queue. An agent will be with you shortly.',
      typing: '{name} is typing…',
    },
    id: {
      close: 'Tutup',
      name: 'Nama',
      email: 'Email',
      phone: 'Telepon',
      optional: '(opsional)',
      fill_in: 'Mohon isi: {fields}.',
      consent_needed: 'Mohon setujui ketentuannya untuk memulai.',
      start_failed: 'Obrolan tidak dapat dimulai.',
      offline: 'Tidak ada koneksi. Silakan coba lagi.',
      away_form:
        'Kami sedang tidak di tempat. Tinggalkan data dan pesan Anda: kami akan membalas lewat email.',
      away_form_email:
        'Kami sedang tidak di tempat. Tinggalkan email dan pesan Anda, kami akan membalas ke sana, atau kembali ke halaman ini nanti.',
      away_chat: 'Kami sedang tidak di tempat; kami akan membalas lewat email jika Anda pergi.',
      away_chat_no_email:
        'Kami sedang tidak di tempat; tinggalkan pesan dan kembali ke halaman ini untuk membaca balasan kami.',
      placeholder: 'Tulis pesan…',
      message: 'Pesan',
      send: 'Kirim',
      attach: 'Lampirkan berkas',
      sending: 'Mengirim…',
      sent: 'Terkirim',
      read: 'Dibaca',
      not_sent: 'Tidak terkirim',
      removed: 'Pesan dihapus',
      file: 'berkas',
      joined: '{name} bergabung dalam obrolan',
      queue: 'Anda nomor {n} dalam antrean. Agen akan segera melayani Anda.',
      typing: '{name} sedang mengetik…',
    },
  }
  const FIELDS = [
    ['name', 'text', 'name'],
    ['email', 'email', 'email'],
    ['phone', 'tel', 'tel'],
  ]
  let lang = 'en'
  let cfg = null
  let configAt = 0
  let hasEmail = false
  let token = load()
  let lastId = 0
  let seenId = 0
  let shown = {}
  let open = true
  let socket = null
  let beat = null
  let typingTimer = null
  let lastTypingSent = 0

  function load() {
    try {
      return localStorage.getItem(store)
    } catch (_e) {
      return null
    }
  }
  function save(v) {
    try {
      if (v) localStorage.setItem(store, v)
      else localStorage.removeItem(store)
    } catch (_e) {}
  }
  function el(tag, attrs, children) {
    const n = document.createElement(tag)
    for (const k in attrs || {}) {
      if (k === 'text') n.textContent = attrs[k]
      else if (k === 'class') n.className = attrs[k]
      else n.setAttribute(k, attrs[k])
    }
    ;(children || []).forEach((c) => {
      if (c) n.appendChild(c)
    })
    return n
  }
  function call(method, path, body, isForm) {
    const headers = { 'x-locale': lang }
    if (token) headers.authorization = 'Bearer ' + token
    if (body && !isForm) headers['content-type'] = 'application/json'
    return fetch(api + path, {
      method: method,
      headers: headers,
      body: body ? (isForm ? body : JSON.stringify(body)) : undefined,
    }).then((r) =>
      r
        .json()
        .catch(() => ({}))
        .then((j) => ({ status: r.status, json: j })),
    )
  }
  function tr(key, vars) {
    const text = TEXTS[lang][key] || TEXTS.en[key] || key
    return text.replace(/\{(\w+)\}/g, (m, k) => (vars && vars[k] != null ? String(vars[k]) : m))
  }
  function pickLang(v) {
    const p = String(v || '')
      .toLowerCase()
      .slice(0, 2)
    // `in` is the old code for Indonesian that some systems still report.
    return p === 'id' || p === 'in' ? 'id' : p === 'en' ? 'en' : null
  }
  function chooseLang() {
    const chosen = pickLang(params.get('locale')) || pickLang(cfg.locale)
    if (chosen) return chosen
    const wanted = navigator.languages?.length ? navigator.languages : [navigator.language]
    for (let i = 0; i < wanted.length; i++) {
      const l = pickLang(wanted[i])
      if (l) return l
    }
    return 'en'
  }
  /** An owner text: as typed, or in the visitor's language while it is still the default. */
  function own(key) {
    const d = cfg.default_texts?.[lang]
    return d?.[key] ? d[key] : cfg[key]
  }
  /** The pre-chat setting of a field; outside business hours the e-mail fallback needs an address to write to. */
  function modeOf(name) {
    const m = cfg.prechat?.[name] || 'required'
    if (name === 'email' && m === 'hidden' && away()) return 'optional'
    return m
  }
  function away() {
    return !cfg.open && cfg.email_fallback
  }
  function randomId() {
    const a = new Uint8Array(12)
    crypto.getRandomValues(a)
    return Array.prototype.map.call(a, (b) => ('0' + b.toString(16)).slice(-2)).join('')
  }

  // ---- Look -------------------------------------------------------------------------------
  function applyLook() {
    const s = document.documentElement.style
    s.setProperty('--kc-color', cfg.color)
    s.setProperty('--kc-radius', cfg.radius + 'px')
    s.setProperty('--kc-font', FONTS[cfg.font] || FONTS.system)
    document.title = own('title')
    document.documentElement.lang = lang
  }
  function header() {
    const closeBtn = el('button', { type: 'button', 'aria-label': tr('close'), text: '\u00d7' })
    closeBtn.addEventListener('click', () => {
      parent.postMessage({ kotak: 'close' }, '*')
    })
    return el('div', { class: 'head' }, [
      cfg.logo_url ? el('img', { src: cfg.logo_url, alt: '' }) : null,
      el('div', { class: 't' }, [el('h1', { text: own('title') }), el('p', { text: own('subtitle') })]),
      closeBtn,
    ])
  }

  // ---- Start form -------------------------------------------------------------------------
  function renderForm(error) {
    app.innerHTML = ''
    const body = el('div', { class: 'body' })
    if (own('intro')) body.appendChild(el('p', { class: 'intro', text: own('intro') }))
    if (away())
      body.appendChild(
        el('div', {
          class: 'away',
          text: modeOf('email') === 'required' ? tr('away_form') : tr('away_form_email'),
        }),
      )
    const form = el('form', { class: 'start', novalidate: '' })
    const shown = FIELDS.filter((f) => modeOf(f[0]) !== 'hidden')
    shown.forEach((f) => {
      const required = modeOf(f[0]) === 'required'
      const input = el('input', { type: f[1], name: f[0], autocomplete: f[2], maxlength: '100' })
      if (required) input.setAttribute('required', '')
      form.appendChild(
        el('label', {}, [
          el('span', { text: tr(f[0]) }),
          required ? null : el('span', { class: 'opt', text: ' ' + tr('optional') }),
          input,
        ]),
      )
    })
    if (cfg.consent)
      form.appendChild(
        el('label', { class: 'consent' }, [
          el('input', { type: 'checkbox', name: 'consent' }),
          el('span', { text: cfg.consent }),
        ]),
      )
    const err = el('div', { class: 'error', role: 'alert', text: error || '' })
    const submit = el('button', { class: 'btn', type: 'submit', text: own('start_label') })
    form.appendChild(err)
    form.appendChild(submit)
    form.addEventListener('submit', (e) => {
      e.preventDefault()
      const data = { page_url: page || null, locale: lang, form_token: cfg.form_token }
      const missing = []
      shown.forEach((f) => {
        const input = form.elements[f[0]]
        const value = input.value.trim()
        if (value) data[f[0]] = value
        const lacking = !value && modeOf(f[0]) === 'required'
        if (lacking) missing.push(tr(f[0]))
        if (lacking) input.setAttribute('aria-invalid', 'true')
        else input.removeAttribute('aria-invalid')
      })
      if (cfg.consent) data.consent = form.elements.consent.checked
      if (missing.length) {
        err.textContent = tr('fill_in', { fields: missing.join(', ') })
        return
      }
      if (cfg.consent && !data.consent) {
        err.textContent = tr('consent_needed')
        return
      }
      submit.disabled = true
      const wait = Math.max(0, cfg.min_fill_ms - (Date.now() - configAt))
      setTimeout(() => {
        startChat(data, form, err, submit, true)
      }, wait)
    })
    body.appendChild(form)
    app.appendChild(header())
    app.appendChild(body)
  }
  function startChat(data, form, err, submit, retry) {
    call('POST', '/visitors', data).then(
      (r) => started(r, data, form, err, submit, retry),
      () => {
        submit.disabled = false
        err.textContent = tr('offline')
      },
    )
  }
  function started(r, data, form, err, submit, retry) {
    if (r.status === 201) {
      token = r.json.data.token
      hasEmail = !!data.email
      save(token)
      renderChat()
      applyQueue(r.json.data)
      connect()
      heartbeat()
      return
    }
    const fields = r.json.error?.fields || {}
    if (fields.form_token && retry) {
      // The token expired or was spent: take a fresh one and try once more.
      return fetchConfig().then(() => {
        data.form_token = cfg.form_token
        setTimeout(() => {
          startChat(data, form, err, submit, false)
        }, cfg.min_fill_ms)
      })
    }
    submit.disabled = false
    // The server's messages follow X-Locale; a form field's is said with its label.
    const lines = Object.keys(fields).map((f) => {
      const input = form.elements[f]
      if (input?.setAttribute) input.setAttribute('aria-invalid', 'true')
      return FIELDS.some((x) => x[0] === f) ? tr(f) + ' ' + fields[f] : fields[f]
    })
    err.textContent = lines.length ? lines.join('. ') : r.json.error?.message || tr('start_failed')
  }

  // ---- Chat -------------------------------------------------------------------------------
  let list, notice, typingLine, textarea, fileInput
  function renderChat() {
    app.innerHTML = ''
    shown = {}
    list = el('div', { class: 'body', 'aria-live': 'polite' })
    notice = el('div', { class: 'notice' })
    list.appendChild(notice)
    typingLine = el('div', { class: 'typing' })
    textarea = el('textarea', {
      placeholder: tr('placeholder'),
      'aria-label': tr('message'),
      maxlength: '5000',
    })
    const send = el('button', { class: 'btn', type: 'button', text: tr('send') })
    const composer = el('div', { class: 'composer' })
    if (cfg.attachments !== 'off') {
      fileInput = el('input', {
        type: 'file',
        class: 'hidden',
        accept: cfg.attachments === 'images' ? 'image/png,image/jpeg,image/webp,image/gif' : '',
      })
      const attach = el('button', {
        class: 'attach',
        type: 'button',
        'aria-label': tr('attach'),
      })
      attach.appendChild(clipIcon())
      attach.addEventListener('click', () => {
        fileInput.click()
      })
      fileInput.addEventListener('change', () => {
        if (fileInput.files[0]) sendMessage('', fileInput.files[0])
        fileInput.value = ''
      })
      composer.appendChild(fileInput)
      composer.appendChild(attach)
    }
    composer.appendChild(textarea)
    composer.appendChild(send)
    send.addEventListener('click', () => {
      submitText()
    })
    textarea.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault()
        submitText()
      }
    })
    textarea.addEventListener('input', () => {
      const now = Date.now()
      if (now - lastTypingSent > 3000) {
        lastTypingSent = now
        call('POST', '/typing', { typing: true })
      }
      clearTimeout(typingTimer)
      typingTimer = setTimeout(() => {
        lastTypingSent = 0
        call('POST', '/typing', { typing: false })
      }, 4000)
    })
    app.appendChild(header())
    app.appendChild(list)
    app.appendChild(typingLine)
    app.appendChild(composer)
    awayNotice()
  }
  function awayNotice() {
    if (notice && away()) notice.textContent = hasEmail ? tr('away_chat') : tr('away_chat_no_email')
  }
  function clipIcon() {
    const ns = 'http://www.w3.org/2000/svg'
    const svg = document.createElementNS(ns, 'svg')
    svg.setAttribute('viewBox', '0 0 24 24')
    svg.setAttribute('width', '18')
    svg.setAttribute('height', '18')
    svg.setAttribute('aria-hidden', 'true')
    const p = document.createElementNS(ns, 'path')
    p.setAttribute(
      'd',
      'M21 11.5l-8.5 8.5a5 5 0 0 1-7-7L14 4.5a3.3 3.3 0 0 1 4.7 4.7L10.2 17.7a1.7 1.7 0 0 1-2.4-2.4L15.5 7.6',
    )
    p.setAttribute('fill', 'none')
    p.setAttribute('stroke', 'currentColor')
    p.setAttribute('stroke-width', '2')
    p.setAttribute('stroke-linecap', 'round')
    svg.appendChild(p)
    return svg
  }
  function submitText() {
    const text = textarea.value.trim()
    if (!text) return
    textarea.value = ''
    sendMessage(text, null)
  }
  function sendMessage(text, file) {
    const clientId = randomId()
    const pending = {
      id: 'p-' + clientId,
      direction: 'in',
      body: text,
      type: file ? 'document' : 'text',
      media: null,
      status: 'sending',
      client_id: clientId,
      sender: {},
    }
    addMessage(pending)
    const attempt = (tries) => {
      let req
      if (file) {
        const form = new FormData()
        form.append('client_id', clientId)
        if (text) form.append('text', text)
        form.append('file', file, file.name)
        req = call('POST', '/messages', form, true)
      } else req = call('POST', '/messages', { text: text, client_id: clientId })
      return req.then(
        (r) => {
          if (r.status === 200 || r.status === 201) {
            removeNode('p-' + clientId)
            addMessage(r.json.data)
          } else {
            markFailed('p-' + clientId, r.json.error?.message || tr('not_sent'))
          }
        },
        () => {
          // Network trouble: the same client_id makes the retry safe.
          if (tries < 5)
            setTimeout(
              () => {
                attempt(tries + 1)
              },
              1000 * (tries + 1),
            )
          else markFailed('p-' + clientId, tr('not_sent'))
        },
      )
    }
    attempt(0)
  }
  function removeNode(id) {
    const n = document.getElementById('m-' + id)
    if (n) n.parentNode.removeChild(n)
    delete shown[id]
  }
  function markFailed(id, why) {
    const n = document.getElementById('m-' + id)
    if (!n) return
    n.setAttribute('data-status', 'failed')
    n.querySelector('.meta').textContent = why
  }
  function addMessage(m) {
    if (!list) return
    if (m.client_id && shown['p-' + m.client_id] && typeof m.id === 'number') removeNode('p-' + m.client_id)
    if (shown[m.id]) {
      const old = document.getElementById('m-' + m.id)
      if (old) old.parentNode.replaceChild(messageNode(m), old)
      return
    }
    shown[m.id] = true
    list.appendChild(messageNode(m))
    if (typeof m.id === 'number' && m.id > lastId) lastId = m.id
    list.scrollTop = list.scrollHeight
    if (m.direction === 'out') seen()
  }
  function messageNode(m) {
    const bubble = el('div', { class: 'bubble' })
    if (m.direction === 'out' && m.sender && m.sender.name)
      bubble.appendChild(el('span', { class: 'who', text: m.sender.name }))
    if (m.media) bubble.appendChild(mediaNode(m.media))
    if (m.body) bubble.appendChild(el('span', { class: 'text', text: m.body }))
    if (m.deleted) bubble.appendChild(el('em', { text: tr('removed') }))
    const meta =
      m.direction === 'in'
        ? m.status === 'sending'
          ? tr('sending')
          : m.status === 'read'
            ? tr('read')
            : tr('sent')
        : ''
    bubble.appendChild(el('span', { class: 'meta', text: meta }))
    const n = el('div', { class: 'msg ' + m.direction, id: 'm-' + m.id, 'data-status': m.status || '' }, [
      bubble,
    ])
    return n
  }
  function mediaNode(media) {
    // Files need the visitor token: fetched, then shown from a blob URL.
    const holder = el('div')
    fetch(media.url, { headers: { authorization: 'Bearer ' + token } })
      .then((r) => (r.ok ? r.blob() : null))
      .then((b) => {
        if (!b) return
        const url = URL.createObjectURL(b)
        if ((media.mime || '').indexOf('image/') === 0)
          holder.appendChild(el('img', { src: url, alt: media.name || '' }))
        else
          holder.appendChild(
            el('a', { href: url, download: media.name || tr('file'), text: media.name || tr('file') }),
          )
      })
    return holder
  }
  function applyQueue(d) {
    if (!notice) return
    if (d.agent) notice.textContent = tr('joined', { name: d.agent.name })
    // Outside business hours nobody will be with them shortly: the away line stays.
    else if (d.queue?.waiting && !away()) notice.textContent = tr('queue', { n: d.queue.position })
  }
  function refresh() {
    return call('GET', '/conversation' + (lastId ? '?after=' + lastId : '')).then((r) => {
      if (r.status === 401 || r.status === 404) {
        token = null
        save(null)
        renderForm()
        return false
      }
      if (r.status !== 200) return true
      hasEmail = !!r.json.data.visitor?.email
      awayNotice()
      r.json.data.messages.forEach(addMessage)
      applyQueue(r.json.data)
      return true
    })
  }
  function connect() {
    if (!token) return
    call('POST', '/realtime').then((r) => {
      if (r.status !== 200) return setTimeout(connect, 3000)
      const ws = new WebSocket(r.json.data.url)
      socket = ws
      ws.onmessage = (e) => {
        let f
        try {
          f = JSON.parse(e.data)
        } catch (_x) {
          return
        }
        if (!f.event) return
        if (f.event === 'message') addMessage(f.data)
        else if (f.event === 'queue') applyQueue(f.data)
        else if (f.event === 'typing' && f.data.from === 'agent')
          typingLine.textContent = f.data.typing ? tr('typing', { name: f.data.name }) : ''
        else if (f.event === 'read') {
          const nodes = list.querySelectorAll('.msg.in')
          for (let i = 0; i < nodes.length; i++) {
            const st = nodes[i].getAttribute('data-status')
            if (st === 'sending' || st === 'failed' || st === 'read') continue
            nodes[i].setAttribute('data-status', 'read')
            nodes[i].querySelector('.meta').textContent = tr('read')
          }
        }
      }
      ws.onclose = () => {
        if (socket !== ws) return
        socket = null
        // Catch up on what was missed, then listen again.
        setTimeout(() => {
          refresh().then((still) => {
            if (still) connect()
          })
        }, 2000)
      }
    })
  }
  function seen() {
    if (!token || !open) return
    seenId = Math.max(seenId, lastId)
    call('POST', '/seen', { message_id: seenId })
  }
  function heartbeat() {
    clearInterval(beat)
    beat = null
    if (open) {
      seen()
      beat = setInterval(seen, 30000)
    }
  }
  window.addEventListener('message', (e) => {
    // Only the page that embeds the chat (the loader) says whether it is open: another frame of
    // that page must not mark the agents' replies read.
    if (e.source !== window.parent || !e.data || typeof e.data.kotak !== 'string') return
    if (e.data.kotak === 'open') open = true
    else if (e.data.kotak === 'closed') open = false
    heartbeat()
  })

  function fetchConfig() {
    return fetch(api + '/config?page=' + encodeURIComponent(page))
      .then((r) => r.json())
      .then((j) => {
        cfg = j.data
        configAt = Date.now()
        lang = chooseLang()
        applyLook()
      })
  }
  fetchConfig().then(() => {
    if (!cfg.allowed) {
      app.textContent = ''
      return
    }
    if (token) {
      renderChat()
      refresh().then((still) => {
        if (still) connect()
      })
    } else renderForm()
    parent.postMessage({ kotak: 'ready' }, '*')
    heartbeat()
  })
})()
