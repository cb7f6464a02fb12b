/*
 * Kotak live chat loader. The customer's page includes
 *   <script src="https://KOTAK/widget.js" data-kotak-key="lc_…" async></script>
 * (optionally `data-kotak-locale="id"` or `"en"`: the widget's own texts in that language whatever
 * the visitor's browser says). It reads the widget's config (the one CORS-open endpoint), draws the launcher inside a shadow
 * root (`all: initial`, so the page's CSS cannot reach it) and, on first click, an iframe with the
 * chat page Kotak serves: every visitor call is then same-origin inside that frame.
 * Plain ES5-ish browser code, no dependencies.
 */
;(() => {
  if (window.__kotakLivechat) return
  const script = document.currentScript || document.querySelector('script[data-kotak-key]')
  if (!script) return
  const key = script.getAttribute('data-kotak-key')
  if (!key) return
  const locale = script.getAttribute('data-kotak-locale')
  window.__kotakLivechat = true
  const base = new URL(script.src, location.href).origin
  const page = location.href
  const ICONS = {
    chat: '<path d="M4 5h16v11H8l-4 4z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/>',
    message:
      '<path d="M3 6l9 6 9-6M3 6h18v12H3z" fill="none" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/>',
    help: '<circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" stroke-width="2"/><path d="M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.7.3-1 .8-1 1.5V14" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><circle cx="12" cy="17.5" r="1.2" fill="currentColor"/>',
    close:
      '<path d="M6 6l12 12M18 6L6 18" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>',
  }
  const FONTS = {
    system: 'system-ui,-apple-system,"Segoe UI",Roboto,sans-serif',
    'sans-serif': 'Helvetica,Arial,sans-serif',
    serif: 'Georgia,"Times New Roman",serif',
    monospace: 'ui-monospace,Menlo,Consolas,monospace',
    rounded: '"Nunito","Varela Round",system-ui,sans-serif',
  }

  function svg(name) {
    return '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true">' + ICONS[name] + '</svg>'
  }

  fetch(base + '/v1/livechat/' + encodeURIComponent(key) + '/config?page=' + encodeURIComponent(page))
    .then((r) => (r.ok ? r.json() : null))
    .then((res) => {
      if (res?.data?.allowed) mount(res.data)
    })
    .catch(() => {})

  /** The title in the language the frame will speak (frame.js chooses the same way). */
  function titleOf(cfg) {
    const wanted = [locale, cfg.locale].concat(navigator.languages || [navigator.language])
    for (let i = 0; i < wanted.length; i++) {
      const p = String(wanted[i] || '')
        .toLowerCase()
        .slice(0, 2)
      if (p === 'id' || p === 'in') return cfg.default_texts?.id?.title || cfg.title
      if (p === 'en') return cfg.title
    }
    return cfg.title
  }

  function mount(cfg) {
    const title = titleOf(cfg)
    const side = cfg.position === 'left' ? 'left' : 'right'
    const host = document.createElement('div')
    host.setAttribute('data-kotak-livechat', '')
    host.style.cssText =
      'all:initial;position:fixed;z-index:2147483000;bottom:0;' + side + ':0;width:0;height:0;'
    const root = host.attachShadow ? host.attachShadow({ mode: 'open' }) : host
    const radius = Math.max(0, Math.min(24, Number(cfg.radius) || 0))
    root.innerHTML =
      '<style>' +
      ':host{all:initial}' +
      '*{box-sizing:border-box}' +
      '.launcher{all:initial;position:fixed;bottom:20px;' +
      side +
      ':20px;width:58px;height:58px;border-radius:50%;' +
      'background:' +
      cfg.color +
      ';color:#fff;display:flex;align-items:center;justify-content:center;cursor:pointer;' +
      'box-shadow:0 6px 20px rgba(0,0,0,.25);font-family:' +
      FONTS[cfg.font] +
      '}' +
      '.launcher:focus-visible{outline:3px solid #000;outline-offset:2px}' +
      '.launcher img{width:34px;height:34px;border-radius:50%;object-fit:cover}' +
      '.panel{position:fixed;bottom:90px;' +
      side +
      ':20px;width:370px;height:560px;max-width:calc(100vw - 24px);' +
      'max-height:calc(100vh - 110px);border-radius:' +
      radius +
      'px;overflow:hidden;background:#fff;' +
      'box-shadow:0 12px 40px rgba(0,0,0,.3);display:none}' +
      '.panel.open{display:block}' +
      '.panel iframe{border:0;width:100%;height:100%;display:block}' +
      '</style>' +
      '<div class="panel" part="panel"></div>' +
      '<button class="launcher" part="launcher" type="button" aria-label="' +
      escapeAttr(title) +
      '"></button>'
    const panel = root.querySelector('.panel')
    const button = root.querySelector('.launcher')
    let frame = null
    let open = false
    function launcherFace() {
      if (open) button.innerHTML = svg('close')
      else if (cfg.launcher_icon === 'logo' && cfg.logo_url)
        button.innerHTML = '<img alt="" src="' + escapeAttr(base + cfg.logo_url) + '">'
      else button.innerHTML = svg(ICONS[cfg.launcher_icon] ? cfg.launcher_icon : 'chat')
    }
    function tell(msg) {
      if (frame?.contentWindow) frame.contentWindow.postMessage(msg, base)
    }
    function setOpen(v) {
      open = v
      if (open && !frame) {
        frame = document.createElement('iframe')
        frame.title = title
        frame.setAttribute('allow', 'clipboard-write')
        frame.src =
          base +
          '/livechat/' +
          encodeURIComponent(key) +
          '/frame?page=' +
          encodeURIComponent(page) +
          (locale ? '&locale=' + encodeURIComponent(locale) : '')
        panel.appendChild(frame)
      }
      panel.className = open ? 'panel open' : 'panel'
      launcherFace()
      tell({ kotak: open ? 'open' : 'closed' })
    }
    button.addEventListener('click', () => {
      setOpen(!open)
    })
    window.addEventListener('message', (e) => {
      if (e.origin !== base || !e.data) return
      if (e.data.kotak === 'close') setOpen(false)
      if (e.data.kotak === 'ready') tell({ kotak: open ? 'open' : 'closed' })
    })
    launcherFace()
    ;(document.body || document.documentElement).appendChild(host)
  }

  function escapeAttr(s) {
    return String(s == null ? '' : s)
      .replace(/&/g, '&amp;')
      .replace(/"/g, '&quot;')
      .replace(/</g, '&lt;')
  }
})()
