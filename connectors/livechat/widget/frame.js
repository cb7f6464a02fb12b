/*
 * Kotak live chat: the chat page inside the widget's iframe. Same origin as the API, so every
 * call carries the visitor token as a bearer credential and no CORS is involved. Plain browser
 * code, no dependencies. The loader tells it when the panel opens and closes (postMessage); while
 * open it beats `seen` every 30 seconds, which agents see as `visitor.online`.
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
  let cfg = null
  let configAt = 0
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
    const headers = {}
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
    document.title = cfg.title
  }
  function header() {
    const closeBtn = el('button', { type: 'button', 'aria-label': 'Close', text: '\u00d7' })
    closeBtn.addEventListener('click', () => {
      parent.postMessage({ kotak: 'close' }, '*')
    })
    return el('div', { class: 'head' }, [
      cfg.logo_url ? el('img', { src: cfg.logo_url, alt: '' }) : null,
      el('div', { class: 't' }, [el('h1', { text: cfg.title }), el('p', { text: cfg.subtitle })]),
      closeBtn,
    ])
  }

  // ---- Start form -------------------------------------------------------------------------
  function renderForm(error) {
    app.innerHTML = ''
    const body = el('div', { class: 'body' })
    if (cfg.intro) body.appendChild(el('p', { class: 'intro', text: cfg.intro }))
    if (!cfg.open && cfg.email_fallback)
      body.appendChild(
        el('div', {
          class: 'away',
          text: 'We are away right now. Leave your details and a message: we will reply by e-mail.',
        }),
      )
    const form = el('form', { class: 'start', novalidate: '' })
    function field(label, name, type, auto) {
      return el('label', { text: label }, [
        el('input', { type: type, name: name, required: '', autocomplete: auto, maxlength: '100' }),
      ])
    }
    form.appendChild(field('Name', 'name', 'text', 'name'))
    form.appendChild(field('E-mail', 'email', 'email', 'email'))
    form.appendChild(field('Phone', 'phone', 'tel', 'tel'))
    if (cfg.consent)
      form.appendChild(
        el('label', { class: 'consent' }, [
          el('input', { type: 'checkbox', name: 'consent' }),
          el('span', { text: cfg.consent }),
        ]),
      )
    const err = el('div', { class: 'error', role: 'alert', text: error || '' })
    const submit = el('button', { class: 'btn', type: 'submit', text: cfg.start_label })
    form.appendChild(err)
    form.appendChild(submit)
    form.addEventListener('submit', (e) => {
      e.preventDefault()
      const data = {
        name: form.elements.name.value.trim(),
        email: form.elements.email.value.trim(),
        phone: form.elements.phone.value.trim(),
        page_url: page || null,
        locale: (navigator.language || 'en').slice(0, 2) === 'id' ? 'id' : 'en',
        form_token: cfg.form_token,
      }
      if (cfg.consent) data.consent = form.elements.consent.checked
      if (!data.name || !data.email || !data.phone) {
        err.textContent = 'Please fill in your name, e-mail and phone.'
        return
      }
      if (cfg.consent && !data.consent) {
        err.textContent = 'Please accept the terms to start.'
        return
      }
      submit.disabled = true
      const wait = Math.max(0, cfg.min_fill_ms - (Date.now() - configAt))
      setTimeout(() => {
        startChat(data, err, submit, true)
      }, wait)
    })
    body.appendChild(form)
    app.appendChild(header())
    app.appendChild(body)
  }
  function startChat(data, err, submit, retry) {
    call('POST', '/visitors', data).then((r) => {
      if (r.status === 201) {
        token = r.json.data.token
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
            startChat(data, err, submit, false)
          }, cfg.min_fill_ms)
        })
      }
      submit.disabled = false
      const first = Object.keys(fields)[0]
      err.textContent = first
        ? first + ' ' + fields[first]
        : r.json.error?.message || 'Could not start the chat.'
    })
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
    textarea = el('textarea', { placeholder: 'Write a message…', 'aria-label': 'Message', maxlength: '5000' })
    const send = el('button', { class: 'btn', type: 'button', text: 'Send' })
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
        'aria-label': 'Attach a file',
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
    if (!cfg.open && cfg.email_fallback)
      notice.textContent = 'We are away right now; we will reply by e-mail if you leave.'
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
            markFailed('p-' + clientId, r.json.error?.message || 'Not sent')
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
          else markFailed('p-' + clientId, 'Not sent')
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
    if (n) n.querySelector('.meta').textContent = why
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
    if (m.deleted) bubble.appendChild(el('em', { text: 'Message removed' }))
    const meta =
      m.direction === 'in'
        ? m.status === 'sending'
          ? 'Sending…'
          : m.status === 'read'
            ? 'Read'
            : 'Sent'
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
            el('a', { href: url, download: media.name || 'file', text: media.name || 'file' }),
          )
      })
    return holder
  }
  function applyQueue(d) {
    if (!notice) return
    if (d.agent) notice.textContent = d.agent.name + ' joined the chat'
    else if (d.queue?.waiting)
      notice.textContent =
        'You are number ' + d.queue.position + ' in the queue. An agent will be with you shortly.'
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
          typingLine.textContent = f.data.typing ? f.data.name + ' is typing…' : ''
        else if (f.event === 'read') {
          const nodes = list.querySelectorAll('.msg.in .meta')
          for (let i = 0; i < nodes.length; i++)
            if (nodes[i].textContent === 'Sent') nodes[i].textContent = 'Read'
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
    if (!e.data || typeof e.data.kotak !== 'string') return
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
