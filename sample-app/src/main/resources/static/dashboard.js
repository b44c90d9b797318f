/*
 * llm-throttle dashboard: polls the llmthrottle actuator endpoint (and the sample's /api/demo)
 * every second and draws one card per client and model. Plain JavaScript, no dependencies.
 *
 * Query parameters: ?endpoint=<url> to poll another endpoint, ?demo=<url> for the progress strip.
 */
(function () {
  'use strict';

  var params = new URLSearchParams(window.location.search);
  var ENDPOINT = params.get('endpoint') || 'actuator/llmthrottle';
  var DEMO = params.get('demo') || 'api/demo';
  var INTERVAL_MS = 1000;
  var WINDOW_MS = 120000;
  var MIN_WINDOW_MS = 30000;
  var TIMEOUT_MS = 3000;
  var SVG_NS = 'http://www.w3.org/2000/svg';

  var BUCKETS = [
    { key: 'requests', label: 'requests/min', limit: 'requestsPerMinute', available: 'requests',
      remaining: 'requestsRemaining' },
    { key: 'input-tokens', label: 'input tok/min', limit: 'inputTokensPerMinute', available: 'inputTokens',
      remaining: 'inputTokensRemaining' },
    { key: 'output-tokens', label: 'output tok/min', limit: 'outputTokensPerMinute', available: 'outputTokens',
      remaining: 'outputTokensRemaining' },
    { key: 'tokens', label: 'all tok/min', limit: 'tokensPerMinute', available: 'tokens',
      remaining: 'tokensRemaining' }
  ];

  var TOTALS = [
    ['calls', 'calls'], ['succeeded', 'ok'], ['failed', 'failed'], ['rateLimited', '429s'],
    ['overloaded', '529s'], ['retries', 'retries'], ['fallbacks', 'fallbacks'], ['rejected', 'rejected'],
    ['inputTokens', 'tokens in'], ['outputTokens', 'tokens out']
  ];

  var EVENTS = [
    { key: 'rateLimited', cls: 'c429' }, { key: 'overloaded', cls: 'c529' },
    { key: 'retries', cls: 'cretries' }, { key: 'fallbacks', cls: 'cfallbacks' }
  ];

  var cards = new Map();
  var lastSuccess = null;
  var demoAvailable = true;
  var polls = 0;

  var $ = function (sel, root) { return (root || document).querySelector(sel); };
  var byTestId = function (id, root) { return $('[data-testid="' + id + '"]', root); };

  // ---- formatting ---------------------------------------------------------------------------

  function fmt(n) {
    if (n === null || n === undefined || typeof n !== 'number' || !isFinite(n)) {
      return '–';
    }
    var a = Math.abs(n);
    var scaled = function (v, suffix) {
      var digits = Math.abs(v) >= 100 ? 0 : (Math.abs(v) >= 10 ? 1 : 2);
      return parseFloat(v.toFixed(digits)).toString() + suffix;
    };
    if (a >= 1e9) { return scaled(n / 1e9, 'G'); }
    if (a >= 1e6) { return scaled(n / 1e6, 'M'); }
    if (a >= 1e3) { return scaled(n / 1e3, 'k'); }
    if (a > 0 && a < 10 && n % 1 !== 0) { return n.toFixed(1); }
    return Math.round(n).toString();
  }

  function clock(date) {
    return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  }

  function ago(ms) {
    var s = Math.max(0, Math.round(ms / 1000));
    return s < 90 ? s + ' s' : Math.round(s / 60) + ' min';
  }

  function clamp01(v) { return Math.max(0, Math.min(1, v)); }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  // ---- polling ------------------------------------------------------------------------------

  function fetchJson(url) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TIMEOUT_MS);
    return fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store', signal: controller.signal })
      .then(function (response) {
        if (!response.ok) {
          var error = new Error('HTTP ' + response.status);
          error.status = response.status;
          throw error;
        }
        return response.json();
      })
      .finally(function () { clearTimeout(timer); });
  }

  function poll() {
    var started = Date.now();
    var requests = [fetchJson(ENDPOINT)];
    if (demoAvailable) { requests.push(fetchJson(DEMO)); }
    Promise.allSettled(requests).then(function (results) {
      var now = Date.now();
      if (results[0].status === 'fulfilled') {
        lastSuccess = now;
        showReachable(now);
        render(results[0].value, now);
        polls++;
        document.body.setAttribute('data-polls', String(polls));
      }
      else {
        showUnreachable(results[0].reason, now);
      }
      if (results.length > 1) {
        if (results[1].status === 'fulfilled') {
          renderDemo(results[1].value);
        }
        else if (results[1].reason && results[1].reason.status === 404) {
          demoAvailable = false;
          byTestId('demo-progress').hidden = true;
        }
      }
    }).catch(function (error) {
      // a rendering bug must not stop the polling
      if (window.console) { console.error(error); }
    }).finally(function () {
      setTimeout(poll, Math.max(100, INTERVAL_MS - (Date.now() - started)));
    });
  }

  function showReachable(now) {
    document.body.classList.remove('stale');
    byTestId('unreachable-banner').hidden = true;
    byTestId('status-dot').className = 'dot live';
    byTestId('last-updated').textContent = 'live · ' + clock(new Date(now));
  }

  function showUnreachable(reason, now) {
    document.body.classList.add('stale');
    byTestId('status-dot').className = 'dot down';
    var why = (reason && reason.name === 'AbortError') ? 'timed out' : ((reason && reason.message) || 'network error');
    byTestId('last-updated').textContent = 'unreachable · ' + clock(new Date(now));
    byTestId('unreachable-detail').textContent = 'GET ' + ENDPOINT + ' failed (' + why + '). Retrying every second' +
      (lastSuccess ? '; showing data from ' + ago(now - lastSuccess) + ' ago.' : '.');
    byTestId('unreachable-banner').hidden = false;
  }

  // ---- page -------------------------------------------------------------------------------

  function render(body, now) {
    var seen = new Set();
    var sums = { inFlight: 0, queued: 0 };
    TOTALS.forEach(function (t) { sums[t[0]] = 0; });
    var container = byTestId('cards');
    var clients = (body && body.clients) || {};
    Object.keys(clients).forEach(function (clientName) {
      var client = clients[clientName] || {};
      var models = client.models || {};
      Object.keys(models).forEach(function (modelName) {
        var id = clientName + '\u0000' + modelName;
        seen.add(id);
        var state = models[modelName] || {};
        var card = cards.get(id);
        if (!card) {
          card = createCard(clientName, client.provider, modelName, state.deploymentOf);
          cards.set(id, card);
          container.appendChild(card.root);
        }
        updateCard(card, state, now);
        var totals = state.totals || {};
        TOTALS.forEach(function (t) { sums[t[0]] += totals[t[0]] || 0; });
        sums.inFlight += state.inFlight || 0;
        sums.queued += (state.queued && state.queued.total) || 0;
      });
    });
    cards.forEach(function (card, id) {
      if (!seen.has(id)) {
        card.root.remove();
        cards.delete(id);
      }
    });
    byTestId('empty').hidden = cards.size > 0;
    if (cards.size === 0) {
      byTestId('empty').textContent = 'No throttled clients are configured.';
    }
    setStat('total-calls', fmt(sums.calls));
    setStat('total-succeeded', fmt(sums.succeeded));
    setStat('total-failed', fmt(sums.failed), sums.failed > 0 ? 'bad' : '');
    setStat('total-rateLimited', fmt(sums.rateLimited), sums.rateLimited > 0 ? 'warn' : '');
    setStat('total-overloaded', fmt(sums.overloaded), sums.overloaded > 0 ? 'warn' : '');
    setStat('total-retries', fmt(sums.retries));
    setStat('total-fallbacks', fmt(sums.fallbacks));
    setStat('total-rejected', fmt(sums.rejected), sums.rejected > 0 ? 'bad' : '');
    setStat('total-inFlight', fmt(sums.inFlight));
    setStat('total-queued', fmt(sums.queued));
    setStat('total-tokens', fmt(sums.inputTokens) + ' / ' + fmt(sums.outputTokens));
  }

  function setStat(id, text, tone) {
    var node = byTestId(id);
    node.textContent = text;
    node.classList.remove('warn', 'bad');
    if (tone) { node.classList.add(tone); }
  }

  function renderDemo(progress) {
    var strip = byTestId('demo-progress');
    if (!progress || !progress.enabled) {
      strip.hidden = true;
      return;
    }
    strip.hidden = false;
    var total = Math.max(1, progress.total || 0);
    var segs = strip.querySelectorAll('.seg');
    segs[0].style.width = (100 * (progress.succeeded || 0) / total) + '%';
    segs[1].style.width = (100 * (progress.degraded || 0) / total) + '%';
    segs[2].style.width = (100 * (progress.failed || 0) / total) + '%';
    byTestId('demo-state').textContent = progress.running ? 'running' : (progress.finished > 0 ? 'finished' : 'starting');
    var numbers = byTestId('demo-numbers');
    numbers.textContent = '';
    [[progress.finished + ' / ' + progress.total, ' calls · '], [progress.succeeded, ' ok · '],
      [progress.degraded, ' degraded · '], [progress.failed, ' failed']].forEach(function (part) {
      numbers.appendChild(el('b', null, String(part[0])));
      numbers.appendChild(document.createTextNode(part[1]));
    });
  }

  // ---- cards ------------------------------------------------------------------------------

  // a deployment (MODEL@DEPLOYMENT) says which model it serves; a model with deployments
  // counts the calls, its deployments the attempts and tokens
  function createCard(clientName, provider, modelName, deploymentOf) {
    var root = el('article', { 'class': 'card', 'data-testid': 'model-card', 'data-client': clientName,
      'data-model': modelName });
    if (deploymentOf) {
      root.setAttribute('data-deployment-of', deploymentOf);
    }

    var head = el('div', { 'class': 'card-head' });
    var title = el('div');
    title.appendChild(el('h2', { 'class': 'model', 'data-testid': 'model-name' }, modelName));
    title.appendChild(el('div', { 'class': 'client', 'data-testid': 'client-name' },
      'client ' + clientName + (provider && provider !== clientName ? ' · ' + provider + ' API' : '') +
      (deploymentOf ? ' · deployment of ' + deploymentOf : '')));
    var badges = el('div', { 'class': 'badges' });
    var paused = el('span', { 'class': 'badge paused', 'data-testid': 'paused-until', hidden: '' });
    var circuit = el('span', { 'class': 'badge unknown', 'data-testid': 'circuit', title: 'circuit breaker state' }, '–');
    badges.appendChild(paused);
    badges.appendChild(circuit);
    head.appendChild(title);
    head.appendChild(badges);
    root.appendChild(head);

    // buckets
    var bucketSection = el('section');
    var bucketTitle = el('h3', { 'class': 'section-title' });
    bucketTitle.appendChild(el('span', null, 'buckets'));
    var serverAge = el('span', { 'class': 'aside', 'data-testid': 'server-observed' }, '');
    bucketTitle.appendChild(serverAge);
    bucketSection.appendChild(bucketTitle);
    var bars = el('div', { 'class': 'bars' });
    var rows = {};
    BUCKETS.forEach(function (b) {
      var row = el('div', { 'class': 'bar-row', 'data-testid': 'bar-' + b.key, hidden: '' });
      row.appendChild(el('span', { 'class': 'name' }, b.label));
      var track = el('div', { 'class': 'track' });
      var fill = el('div', { 'class': 'fill' });
      var marker = el('div', { 'class': 'marker', hidden: '' });
      track.appendChild(fill);
      track.appendChild(marker);
      row.appendChild(track);
      var figure = el('span', { 'class': 'figure' });
      var available = el('span', { 'data-testid': 'available-' + b.key }, '–');
      var of = el('span', { 'class': 'of' }, ' / ');
      var limit = el('span', { 'class': 'of', 'data-testid': 'limit-' + b.key }, '–');
      var sub = el('span', { 'class': 'sub', 'data-testid': 'server-' + b.key }, '');
      figure.appendChild(available);
      figure.appendChild(of);
      figure.appendChild(limit);
      figure.appendChild(sub);
      row.appendChild(figure);
      bars.appendChild(row);
      rows[b.key] = { row: row, fill: fill, marker: marker, available: available, limit: limit, sub: sub };
    });
    bucketSection.appendChild(bars);
    root.appendChild(bucketSection);

    // concurrency and queue
    var duo = el('div', { 'class': 'duo' });
    var conc = el('section');
    conc.appendChild(el('h3', { 'class': 'section-title' }, 'in flight'));
    var concBig = el('div', { 'class': 'big' });
    var inFlight = el('span', { 'data-testid': 'in-flight' }, '–');
    var concOf = el('span', { 'class': 'of' }, '');
    concBig.appendChild(inFlight);
    concBig.appendChild(concOf);
    conc.appendChild(concBig);
    var concTrack = el('div', { 'class': 'track thin' });
    var concFill = el('div', { 'class': 'fill inflight' });
    var concTick = el('div', { 'class': 'limit-tick', hidden: '', title: 'adaptive concurrency limit' });
    concTrack.appendChild(concFill);
    concTrack.appendChild(concTick);
    conc.appendChild(concTrack);
    var concCaption = el('div', { 'class': 'caption', 'data-testid': 'concurrency' }, '');
    conc.appendChild(concCaption);
    duo.appendChild(conc);

    var queue = el('section');
    queue.appendChild(el('h3', { 'class': 'section-title' }, 'queued'));
    var queueBig = el('div', { 'class': 'big' });
    var queueTotal = el('span', { 'data-testid': 'queue-total' }, '–');
    queueBig.appendChild(queueTotal);
    queueBig.appendChild(el('span', { 'class': 'of' }, ' waiting'));
    queue.appendChild(queueBig);
    var stack = el('div', { 'class': 'qstack' });
    var qnums = el('div', { 'class': 'qnums' });
    var qparts = {};
    ['realtime', 'normal', 'batch'].forEach(function (p) {
      var seg = el('span', { 'class': p });
      stack.appendChild(seg);
      var label = el('span');
      label.appendChild(el('i', { 'class': 'q-' + p }));
      label.appendChild(document.createTextNode(p + ' '));
      var value = el('b', { 'data-testid': 'queue-' + p }, '–');
      label.appendChild(value);
      qnums.appendChild(label);
      qparts[p] = { seg: seg, value: value };
    });
    queue.appendChild(stack);
    queue.appendChild(qnums);
    duo.appendChild(queue);
    root.appendChild(duo);

    // chart
    var chartSection = el('section');
    var chartTitle = el('h3', { 'class': 'section-title' });
    chartTitle.appendChild(el('span', null, 'over time'));
    chartTitle.appendChild(el('span', { 'class': 'aside', 'data-testid': 'rates-now' }, ''));
    chartSection.appendChild(chartTitle);
    var svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('data-testid', 'chart');
    svg.setAttribute('role', 'img');
    chartSection.appendChild(svg);
    root.appendChild(chartSection);

    // totals
    var totals = el('div', { 'class': 'totals' });
    var totalValues = {};
    TOTALS.forEach(function (t) {
      var cell = el('div');
      cell.appendChild(el('span', { 'class': 'label' }, t[1]));
      var value = el('span', { 'class': 'value', 'data-testid': 'totals-' + t[0] }, '–');
      cell.appendChild(value);
      totals.appendChild(cell);
      totalValues[t[0]] = value;
    });
    root.appendChild(totals);

    return {
      root: root, circuit: circuit, paused: paused, serverAge: serverAge, rows: rows,
      inFlight: inFlight, concOf: concOf, concFill: concFill, concTick: concTick, concCaption: concCaption,
      queueTotal: queueTotal, qparts: qparts, svg: svg, ratesNow: byTestId('rates-now', chartSection),
      totalValues: totalValues, history: [], previous: null, state: null, peakInFlight: 1
    };
  }

  function updateCard(card, state, now) {
    card.state = state;
    var limits = state.limits || {};
    var effective = state.effectiveLimits || limits;
    var available = state.available || {};
    var server = state.server || {};

    // circuit and pause
    var circuit = state.circuit || 'UNKNOWN';
    card.circuit.textContent = circuit.replace('_', ' ');
    card.circuit.className = 'badge ' + circuit.toLowerCase();
    var pausedUntil = state.pausedUntil ? Date.parse(state.pausedUntil) : NaN;
    if (!isNaN(pausedUntil) && pausedUntil > now) {
      card.paused.hidden = false;
      card.paused.textContent = 'paused · ' + Math.ceil((pausedUntil - now) / 1000) + ' s';
      card.paused.title = 'paused until ' + new Date(pausedUntil).toLocaleTimeString();
    }
    else {
      card.paused.hidden = true;
    }

    // buckets
    BUCKETS.forEach(function (b) {
      var r = card.rows[b.key];
      var limit = effective[b.key === 'tokens' ? 'tokensPerMinute' : b.limit];
      var avail = available[b.available];
      if (limit == null && avail == null) {
        r.row.hidden = true;
        return;
      }
      r.row.hidden = false;
      r.available.textContent = fmt(avail);
      r.limit.textContent = limit != null ? fmt(limit) : 'no limit';
      var frac = (limit && avail != null) ? clamp01(avail / limit) : 0;
      r.fill.style.width = (100 * frac) + '%';
      r.fill.className = 'fill' + (frac < 0.12 ? ' bad' : (frac < 0.35 ? ' warn' : ''));
      var remaining = server[b.remaining];
      var notes = [];
      if (remaining != null && limit) {
        r.marker.hidden = false;
        r.marker.style.left = (100 * clamp01(remaining / limit)) + '%';
        r.marker.title = 'provider reports ' + remaining + ' remaining';
        notes.push('provider ' + fmt(remaining));
      }
      else {
        r.marker.hidden = true;
      }
      var configured = limits[b.limit];
      if (configured != null && limit != null && configured !== limit) {
        notes.push('set ' + fmt(configured));
      }
      r.sub.textContent = notes.join(' · ');
      r.row.title = b.label + ': ' + (avail != null ? avail : '–') + ' available of ' +
        (limit != null ? limit : 'no limit');
    });
    var observed = server.observedAt ? Date.parse(server.observedAt) : NaN;
    card.serverAge.textContent = isNaN(observed) ? 'no provider headers yet' :
      'provider headers ' + ago(now - observed) + ' ago';

    // concurrency
    var inFlight = state.inFlight || 0;
    var adaptive = state.concurrencyLimit;
    var max = effective.maxConcurrency != null ? effective.maxConcurrency : limits.maxConcurrency;
    card.peakInFlight = Math.max(card.peakInFlight, inFlight);
    var scale = max || adaptive || Math.max(card.peakInFlight, 4);
    card.inFlight.textContent = fmt(inFlight);
    card.concOf.textContent = adaptive != null ? ' / ' + fmt(adaptive) : '';
    card.concFill.style.width = (100 * clamp01(inFlight / scale)) + '%';
    if (adaptive != null && max && adaptive < max) {
      card.concTick.hidden = false;
      card.concTick.style.left = (100 * clamp01(adaptive / max)) + '%';
    }
    else {
      card.concTick.hidden = true;
    }
    card.concCaption.textContent = adaptive != null
      ? 'adaptive limit ' + fmt(adaptive) + (max ? ' · max ' + fmt(max) : '')
      : (max ? 'max ' + fmt(max) : 'no concurrency limit');

    // queue
    var queued = state.queued || {};
    var total = queued.total != null ? queued.total : (queued.realtime || 0) + (queued.normal || 0) + (queued.batch || 0);
    card.queueTotal.textContent = fmt(total);
    var queueScale = Math.max(10, total);
    card.history.forEach(function (h) { queueScale = Math.max(queueScale, h.queued); });
    ['realtime', 'normal', 'batch'].forEach(function (p) {
      var n = queued[p] || 0;
      card.qparts[p].value.textContent = fmt(n);
      card.qparts[p].seg.style.width = (100 * n / queueScale) + '%';
    });

    // totals
    var totals = state.totals || {};
    TOTALS.forEach(function (t) { card.totalValues[t[0]].textContent = fmt(totals[t[0]]); });

    // history: rates from the deltas of the totals between two polls
    var prev = card.previous;
    if (prev && now > prev.t && totals.calls >= (prev.totals.calls || 0)) {
      var dt = (now - prev.t) / 1000;
      var sample = { t: now, queued: total, tokens: Math.max(0, (totals.inputTokens || 0) - (prev.totals.inputTokens || 0)) / dt };
      EVENTS.forEach(function (e) {
        sample[e.key] = Math.max(0, (totals[e.key] || 0) - (prev.totals[e.key] || 0)) / dt;
      });
      card.history.push(sample);
    }
    card.previous = { t: now, totals: totals };
    while (card.history.length && card.history[0].t < now - WINDOW_MS) { card.history.shift(); }

    var last = card.history[card.history.length - 1];
    card.ratesNow.textContent = last ? fmt(last.tokens) + ' input tok/s now' : '';
    drawChart(card, now, effective.inputTokensPerMinute);
  }

  // ---- chart ------------------------------------------------------------------------------

  function svgEl(tag, attrs, text) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function drawChart(card, now, inputTokensPerMinute) {
    var svg = card.svg;
    var width = Math.max(240, Math.round(svg.getBoundingClientRect().width || svg.parentNode.clientWidth || 400));
    var height = 150;
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    svg.setAttribute('height', height);
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }

    var left = 0;
    var right = width;
    var tokTop = 16;
    var tokBottom = 78;
    var evTop = 100;
    var evBottom = 134;
    var history = card.history;
    // the window grows with the history, from 30 s up to the 2 minutes kept
    var span = history.length ? now - history[0].t : 0;
    var windowMs = Math.min(WINDOW_MS, Math.max(MIN_WINDOW_MS, Math.ceil(span / 15000) * 15000));
    var start = now - windowMs;
    var x = function (t) { return left + (right - left) * (t - start) / windowMs; };

    // input tokens per second
    var limitRate = inputTokensPerMinute ? inputTokensPerMinute / 60 : null;
    var peak = 0;
    history.forEach(function (h) { peak = Math.max(peak, h.tokens); });
    // a full bucket drained at start-up can spike far above the sustainable rate: clip such
    // spikes at three times the limit so that the steady state stays readable
    var top = Math.max(limitRate ? Math.min(peak * 1.1, limitRate * 3) : peak * 1.1, limitRate ? limitRate * 1.25 : 1, 1);
    var yTok = function (v) { return tokBottom - (tokBottom - tokTop) * Math.min(v, top) / top; };
    svg.appendChild(svgEl('text', { x: left, y: 10 }, 'input tokens/s'));
    svg.appendChild(svgEl('text', { x: right, y: 10, 'text-anchor': 'end' }, 'peak ' + fmt(peak) + '/s'));
    svg.appendChild(svgEl('line', { 'class': 'axis', x1: left, x2: right, y1: tokBottom + 0.5, y2: tokBottom + 0.5 }));
    if (history.length > 1) {
      var line = history.map(function (h, i) {
        return (i ? 'L' : 'M') + x(h.t).toFixed(1) + ' ' + yTok(h.tokens).toFixed(1);
      }).join(' ');
      var area = line + ' L' + x(history[history.length - 1].t).toFixed(1) + ' ' + tokBottom +
        ' L' + x(history[0].t).toFixed(1) + ' ' + tokBottom + ' Z';
      svg.appendChild(svgEl('path', { 'class': 'tok-area', d: area }));
      svg.appendChild(svgEl('path', { 'class': 'tok-line', d: line }));
    }
    if (limitRate) {
      var yl = yTok(limitRate);
      svg.appendChild(svgEl('line', { 'class': 'limit-line', x1: left, x2: right, y1: yl, y2: yl }));
      svg.appendChild(svgEl('text', { x: left + 2, y: yl - 4 }, 'limit ' + fmt(limitRate) + '/s'));
    }

    // 429s, 529s, retries and fallbacks per second, stacked bars
    var evPeak = 0;
    history.forEach(function (h) {
      var sum = 0;
      EVENTS.forEach(function (e) { sum += h[e.key]; });
      evPeak = Math.max(evPeak, sum);
    });
    svg.appendChild(svgEl('text', { x: left, y: evTop - 6 }, '429 · 529 · retries · fallbacks per second'));
    svg.appendChild(svgEl('line', { 'class': 'axis', x1: left, x2: right, y1: evBottom + 0.5, y2: evBottom + 0.5 }));
    if (evPeak > 0) {
      svg.appendChild(svgEl('text', { x: right, y: evTop - 6, 'text-anchor': 'end' }, 'max ' + fmt(evPeak) + '/s'));
      var barWidth = Math.max(2, (right - left) * INTERVAL_MS / windowMs - 1.5);
      var scale = (evBottom - evTop) / evPeak;
      history.forEach(function (h) {
        var y = evBottom;
        EVENTS.forEach(function (e) {
          var hgt = h[e.key] * scale;
          if (hgt > 0) {
            y -= hgt;
            svg.appendChild(svgEl('rect', { 'class': e.cls, x: (x(h.t) - barWidth).toFixed(1), y: y.toFixed(1),
              width: barWidth.toFixed(1), height: Math.max(1, hgt).toFixed(1), rx: 1 }));
          }
        });
      });
    }
    else if (history.length > 0) {
      svg.appendChild(svgEl('text', { 'class': 'quiet', x: (left + right) / 2, y: (evTop + evBottom) / 2 + 4,
        'text-anchor': 'middle' }, 'none — calm'));
    }

    // time axis
    var label = function (ms) {
      return '−' + (ms >= 60000 ? parseFloat((ms / 60000).toFixed(1)) + ' min' : Math.round(ms / 1000) + ' s');
    };
    [[start, label(windowMs), 'start'], [now - windowMs / 2, label(windowMs / 2), 'middle'], [now, 'now', 'end']].forEach(function (tick) {
      svg.appendChild(svgEl('text', { x: x(tick[0]), y: height - 3, 'text-anchor': tick[2] }, tick[1]));
    });
  }

  window.addEventListener('resize', function () {
    var now = Date.now();
    cards.forEach(function (card) {
      if (card.state) {
        var effective = card.state.effectiveLimits || card.state.limits || {};
        drawChart(card, now, effective.inputTokensPerMinute);
      }
    });
  });

  byTestId('endpoint-url').textContent = ENDPOINT;
  byTestId('empty').textContent = 'Waiting for the first poll of ' + ENDPOINT + '…';
  poll();
}());
