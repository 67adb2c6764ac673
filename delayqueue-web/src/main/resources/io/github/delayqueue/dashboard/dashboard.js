// The delayqueue dashboard: reads the queue through the dashboard's own JSON routes every few
// seconds, keeps the figures of the last minutes for the charts, and sends writes (each after a
// confirmation) as form posts with the dashboard's write header and, with Spring Security, its
// CSRF token. Plain JavaScript, no library, nothing loaded from elsewhere.
(function () {
	'use strict';

	var body = document.body;
	var config = {
		base: body.dataset.base,
		readOnly: body.dataset.readOnly === 'true',
		showPayloads: body.dataset.showPayloads === 'true',
		refreshMillis: Number(body.dataset.refreshMillis) || 2000,
		windowMillis: Number(body.dataset.chartWindowMillis) || 300000,
		csrfParameter: body.dataset.csrfParameter,
		csrfToken: body.dataset.csrfToken
	};
	var COLORS = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bc4c00', '#0a7a8a', '#6e7781'];
	var samples = []; // {at: ms, topics: {name: {depth, lag}}}
	var colors = Object.create(null); // maps keyed by topic have no prototype: a topic may be 'constructor'
	var previousCounts = null;
	var answeredBy = null;
	var live = true;
	var timer = null;
	var refreshing = null;
	var again = false; // a refresh asked for while one runs
	var dead = { topic: null, next: null, total: 0, read: 0 }; // the topic the dead-jobs table shows
	var waiting = { topic: null, state: null, next: null, read: 0 }; // what the waiting-jobs table shows
	var seeded = false;

	// a property of a map read from JSON only if it is its own
	function own(map, key) {
		return (map && Object.prototype.hasOwnProperty.call(map, key)) ? map[key] : undefined;
	}

	function $(id) {
		return document.getElementById(id);
	}

	// an element with attributes and children (strings become text: never HTML)
	function el(tag, attrs) {
		var node = document.createElement(tag);
		Object.keys(attrs || {}).forEach(function (name) {
			if (name === 'text') {
				node.textContent = attrs[name];
			}
			else if (name.indexOf('on') === 0) {
				node.addEventListener(name.substring(2), attrs[name]);
			}
			else if (attrs[name] !== null && attrs[name] !== undefined && attrs[name] !== false) {
				node.setAttribute(name, attrs[name]);
			}
		});
		for (var i = 2; i < arguments.length; i++) {
			var child = arguments[i];
			if (child !== null && child !== undefined) {
				node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
			}
		}
		return node;
	}

	function number(value) {
		return (value === null || value === undefined) ? '–' : Number(value).toLocaleString('en');
	}

	// the top of a chart's scale: four equal steps of 1, 2, 2.5 or 5 times a power of ten, so
	// that the five labels differ (1, 0.75, 0.5, 0.25, 0 rather than 1, 1, 1, 0, 0)
	function roundScale(value) {
		var step = Math.pow(10, Math.floor(Math.log10(value / 4)));
		var factor = [1, 2, 2.5, 5, 10].find(function (f) { return f * step * 4 >= value; });
		return factor * step * 4;
	}

	function millis(value) {
		if (!value) {
			return '0 ms';
		}
		return value < 10000 ? value + ' ms' : (value / 1000).toFixed(1) + ' s';
	}

	function time(iso) {
		if (!iso) {
			return el('span', { text: '–' });
		}
		return el('time', { datetime: iso, title: iso, text: new Date(iso).toLocaleString() });
	}

	function showError(message) {
		var box = $('error');
		box.textContent = message || '';
		box.hidden = !message;
	}

	function failure(message, status) {
		var error = new Error(message);
		error.status = status;
		return error;
	}

	// a request to the dashboard's JSON routes: anything but their JSON answer (a redirect to a
	// sign-in page, a refusal by the application's security, no answer at all) fails, saying so
	function request(path, options) {
		options.redirect = 'manual';
		return fetch(config.base + path, options).catch(function () {
			throw failure('cannot reach the application; is it running?', 0);
		}).then(function (response) {
			var type = response.headers.get('Content-Type') || '';
			if (response.type === 'opaqueredirect' || (response.ok && type.indexOf('application/json') < 0)) {
				throw failure('you are signed out: reload the page to sign in again', response.status);
			}
			if (!response.ok && type.indexOf('application/problem+json') < 0) {
				throw failure('refused (' + response.status + '): signed out, or the page is too old; reload it',
					response.status);
			}
			return response.json().then(function (content) {
				if (!response.ok) {
					throw failure(content.detail || String(response.status), response.status);
				}
				return content;
			});
		});
	}

	function get(path, params) {
		var query = params ? '?' + new URLSearchParams(params).toString() : '';
		return request(path + query, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
	}

	function post(path, params) {
		var headers = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json',
			'X-DelayQueue-Dashboard': 'write' };
		var form = new URLSearchParams(params);
		if (config.csrfParameter && config.csrfToken) {
			// as a form parameter, which every CSRF token handler of Spring Security reads
			form.append(config.csrfParameter, config.csrfToken);
		}
		return request(path, { method: 'POST', credentials: 'same-origin', headers: headers, body: form.toString() });
	}

	// asks in a modal dialog; runs the write only when confirmed
	function confirmThen(text, write) {
		var dialog = $('confirm');
		var opener = document.activeElement;
		var place = placeOf(opener);
		$('confirm-text').textContent = text;
		dialog.returnValue = '';
		dialog.addEventListener('close', function onClose() {
			dialog.removeEventListener('close', onClose);
			refocus(opener, place);
			if (dialog.returnValue === 'ok') {
				write().then(function (message) {
					showError('');
					$('notice').textContent = message;
					$('notice').hidden = false;
					return refresh();
				}).then(function () {
					// the write's own refresh may have replaced the control (Pause became Resume)
					refocus(opener, place);
				}).catch(function (error) {
					showError(error.message);
				});
			}
		});
		dialog.showModal();
		$('confirm-cancel').focus();
	}

	// where a control sits: its table and row key, to find its successor after a re-render
	function placeOf(control) {
		var row = control && control.closest ? control.closest('tr[data-key]') : null;
		var table = row ? row.closest('table') : null;
		return (row && table && table.id) ? { table: table.id, key: row.dataset.key } : null;
	}

	// focus back on the control, or on the first button of its row after a re-render, or on the
	// page; only when the focus is not somewhere the user put it since
	function refocus(control, place) {
		var active = document.activeElement;
		if (active && active !== document.body && active !== $('main') && document.body.contains(active)
				&& active !== control) {
			return;
		}
		if (control && control.focus && document.body.contains(control)) {
			control.focus();
			return;
		}
		var rows = place ? $(place.table).querySelectorAll('tr[data-key]') : [];
		for (var i = 0; i < rows.length; i++) {
			if (rows[i].dataset.key === place.key && rows[i].querySelector('button')) {
				rows[i].querySelector('button').focus();
				return;
			}
		}
		$('main').focus();
	}

	function actionButton(label, action, text, write) {
		if (config.readOnly) {
			return null;
		}
		return el('button', { type: 'button', 'class': 'write', 'data-action': action,
			onclick: function () { confirmThen(text, write); } }, label);
	}

	// ---- overview ----

	// brings a table body to the rows given (each with a data-key), keeping the cells that did
	// not change, so that a focused button survives a refresh that does not concern it
	function sync(tbody, rows) {
		rows.forEach(function (fresh, index) {
			var current = tbody.rows[index];
			if (!current) {
				tbody.appendChild(fresh);
			}
			else if (current.dataset.key !== fresh.dataset.key || current.cells.length !== fresh.cells.length) {
				tbody.replaceChild(fresh, current);
			}
			else {
				for (var c = fresh.cells.length - 1; c >= 0; c--) {
					if (current.cells[c].outerHTML !== fresh.cells[c].outerHTML) {
						current.replaceChild(fresh.cells[c], current.cells[c]);
					}
				}
			}
		});
		while (tbody.rows.length > rows.length) {
			tbody.deleteRow(rows.length);
		}
	}

	function colorOf(topic) {
		if (!colors[topic]) {
			colors[topic] = COLORS[Object.keys(colors).length % COLORS.length];
		}
		return colors[topic];
	}

	// this instance's rates since the reading before (none across a change of instance, or
	// from a reading older than the one before)
	function rates(counts, at, instance) {
		var result = Object.create(null);
		if (previousCounts && previousCounts.instance === instance && at > previousCounts.at) {
			var seconds = Math.max((at - previousCounts.at) / 1000, 0.001);
			Object.keys(counts).forEach(function (topic) {
				var before = own(previousCounts.counts, topic) || { completed: 0, retried: 0, dead: 0 };
				var now = counts[topic];
				result[topic] = {
					completed: Math.max(0, now.completed - before.completed) / seconds,
					retried: Math.max(0, now.retried - before.retried) / seconds,
					dead: Math.max(0, now.dead - before.dead) / seconds
				};
			});
		}
		if (!previousCounts || at > previousCounts.at || previousCounts.instance !== instance) {
			previousCounts = { at: at, counts: counts, instance: instance };
		}
		return result;
	}

	function renderOverview(overview) {
		var queue = overview.queue;
		var at = Date.parse(queue.readAt);
		var rate = rates(overview.counts || {}, at, queue.instance);
		answeredBy = queue.instance;
		$('instance').textContent = queue.instance ? 'Answered by ' + queue.instance : '';
		$('total-delayed').textContent = number(queue.totals.delayed);
		$('total-ready').textContent = number(queue.totals.ready);
		$('total-reserved').textContent = number(queue.totals.reserved);
		$('total-dead').textContent = number(queue.totals.dead);
		$('total-lag').textContent = millis(queue.oldestOverdueLagMillis);

		var names = Object.keys(queue.topics);
		var topicRows = $('topics').tBodies[0];
		var freshTopics = names.map(function (name) {
			var topic = queue.topics[name];
			var r = rate[name];
			function perSecond(kind) {
				return el('td', { 'class': 'num', 'data-field': kind + '-rate' },
					r ? r[kind].toFixed(1) : (own(overview.counts, name) ? '…' : '–'));
			}
			return el('tr', { 'data-key': name, 'data-topic': name },
				el('th', { scope: 'row' }, el('span', { 'class': 'swatch', style: null, 'data-color': colorOf(name) }), name),
				el('td', { 'class': 'num', 'data-field': 'delayed' }, number(topic.delayed)),
				el('td', { 'class': 'num', 'data-field': 'ready' }, number(topic.ready)),
				el('td', { 'class': 'num', 'data-field': 'reserved' }, number(topic.reserved)),
				el('td', { 'class': 'num', 'data-field': 'dead' }, number(topic.dead)),
				el('td', { 'class': 'num', 'data-field': 'lag' }, millis(topic.overdueLagMillis)),
				perSecond('completed'), perSecond('retried'), perSecond('dead'));
		});
		freshTopics.forEach(paintSwatches);
		sync(topicRows, freshTopics);

		var listenerRows = [];
		names.forEach(function (name) {
			(queue.topics[name].listeners || []).forEach(function (listener) {
				var pause = listener.state === 'paused' ? 'resume' : 'pause';
				listenerRows.push(el('tr', { 'data-key': listener.id, 'data-listener': listener.id, 'data-topic': name },
					el('th', { scope: 'row' }, listener.id),
					el('td', {}, name),
					el('td', { 'data-field': 'state' }, listener.state),
					el('td', { 'class': 'num' }, number(listener.concurrency)),
					el('td', { 'class': 'num', 'data-field': 'in-flight' }, number(listener.inFlight)),
					el('td', { 'class': 'actions' }, listener.state === 'stopped' ? null
						: actionButton(pause === 'pause' ? 'Pause' : 'Resume', pause,
							(pause === 'pause' ? 'Pause' : 'Resume') + ' listener ' + listener.id + ' of topic ' + name
								+ ' in instance ' + answeredBy + ' (the instance that answers this page)?',
							function () {
								return post('/api/listener', { topic: name, listener: listener.id, action: pause,
									instance: answeredBy || '' })
									.then(function () { return 'Listener ' + listener.id + ': ' + pause + 'd'; });
							}))));
			});
		});
		var listeners = $('listeners').tBodies[0];
		sync(listeners, listenerRows.length ? listenerRows
			: [el('tr', { 'data-key': '' }, el('td', { colspan: 6 }, 'No listeners in this application'))]);

		var instances = $('instances').tBodies[0];
		sync(instances, (queue.instances || []).map(function (instance) {
			var left = Date.parse(instance.heartbeatExpiresAt) - at;
			return el('tr', { 'data-key': instance.name, 'data-instance': instance.name },
				el('th', { scope: 'row' }, instance.name + (instance.self ? ' (this one)' : '')),
				el('td', { 'class': instance.live ? '' : 'bad' },
					instance.live ? 'live: runs out in ' + millis(left) + ' unless renewed'
						: 'ran out ' + millis(-left) + ' ago'),
				el('td', {}, instance.buckets.length ? (instance.buckets.length === 1 ? 'bucket ' : 'buckets ')
					+ instance.buckets.join(', ') : 'none'));
		}));

		var recurring = queue.recurring || [];
		$('recurring-section').hidden = recurring.length === 0;
		var recurringRows = $('recurring').tBodies[0];
		sync(recurringRows, recurring.map(function (job) {
			var toggle = job.paused ? 'resume' : 'pause';
			return el('tr', { 'data-key': job.name, 'data-recurring': job.name },
				el('th', { scope: 'row' }, job.name),
				el('td', {}, job.topic),
				el('td', {}, job.schedule),
				el('td', {}, job.paused ? 'paused' : time(job.nextFireTime)),
				el('td', {}, job.lastOccurrence ? job.lastOccurrence + ' (' + job.lastOccurrenceState + ')' : '–'),
				el('td', { 'class': 'actions' },
					actionButton(job.paused ? 'Resume' : 'Pause', toggle,
						(job.paused ? 'Resume' : 'Pause') + ' recurring job ' + job.name + ' for every instance?',
						function () {
							return post('/api/recurring', { name: job.name, action: toggle })
								.then(function () { return 'Recurring job ' + job.name + ': ' + toggle + 'd'; });
						}),
					actionButton('Trigger', 'trigger', 'Create an occurrence of recurring job ' + job.name + ' now?',
						function () {
							return post('/api/recurring', { name: job.name, action: 'trigger' })
								.then(function (done) { return 'Triggered ' + job.name + ': ' + done.occurrence; });
						})));
		}));

		syncOptions($('find-topic'), names, function (name) { return ''; });
		syncOptions($('dead-topic'), names, function (name) {
			return name + ' (' + number(queue.topics[name].dead) + ' dead)';
		});

		syncOptions($('waiting-topic'), names, function (name) { return ''; });

		if (!seeded) {
			// the readings of the last minutes that the application sampled before this page
			(overview.history || []).forEach(function (sample) {
				var sampledAt = Date.parse(sample.at);
				if (sampledAt < at - 1 && sampledAt >= at - config.windowMillis) {
					samples.push({ at: sampledAt, topics: sample.topics });
				}
			});
			seeded = true;
		}
		record(at, queue.topics);
		draw($('chart-depth'), 'depth');
		draw($('chart-lag'), 'lag');
		legend(names);
	}

	// brings a select's options to the values given, changing only what changed,
	// so that an open list and the selected value stay as they are
	function syncOptions(list, values, label) {
		var chosen = list.value;
		values.forEach(function (value, index) {
			var option = list.options[index];
			if (!option || option.value !== value) {
				var fresh = el('option', { value: value }, label(value) || null);
				if (option) {
					list.replaceChild(fresh, option);
				}
				else {
					list.appendChild(fresh);
				}
			}
			else if (option.textContent !== label(value)) {
				option.textContent = label(value);
			}
		});
		while (list.options.length > values.length) {
			list.removeChild(list.options[values.length]);
		}
		if (chosen !== undefined && values.indexOf(chosen) >= 0) {
			list.value = chosen;
		}
	}

	// the colour swatches: set through the CSS object model, as the policy allows no inline style
	function paintSwatches(root) {
		root.querySelectorAll('[data-color]').forEach(function (swatch) {
			swatch.style.backgroundColor = swatch.dataset.color;
		});
	}

	function legend(names) {
		var list = $('legend');
		list.replaceChildren.apply(list, names.map(function (name) {
			return el('li', {}, el('span', { 'class': 'swatch', 'data-color': colorOf(name) }), name);
		}));
		paintSwatches(list);
	}

	function record(at, topics) {
		var sample = { at: at, topics: Object.create(null) };
		Object.keys(topics).forEach(function (name) {
			var topic = topics[name];
			sample.topics[name] = { depth: topic.delayed + topic.ready + topic.reserved, lag: topic.overdueLagMillis };
		});
		if (samples.length && samples[samples.length - 1].at >= at) {
			return; // a reading no newer than the last one drawn
		}
		samples.push(sample);
		while (samples.length > 1 && samples[0].at < at - config.windowMillis) {
			samples.shift();
		}
	}

	function draw(canvas, field) {
		var context = canvas.getContext('2d');
		var ratio = window.devicePixelRatio || 1;
		var width = canvas.clientWidth || canvas.width;
		var height = canvas.clientHeight || canvas.height;
		if (canvas.width !== Math.round(width * ratio)) {
			canvas.width = Math.round(width * ratio);
			canvas.height = Math.round(height * ratio);
		}
		context.setTransform(ratio, 0, 0, ratio, 0, 0);
		context.clearRect(0, 0, width, height);
		var left = 56, right = 8, top = 8, bottom = 22;
		var now = samples.length ? samples[samples.length - 1].at : Date.now();
		// the chart window, or less while the readings reach back less far (at least 30 s)
		var span = samples.length ? Math.min(config.windowMillis, Math.max(30000, now - samples[0].at))
			: config.windowMillis;
		var from = now - span;
		var max = 1;
		var series = Object.create(null);
		samples.forEach(function (sample) {
			Object.keys(sample.topics).forEach(function (name) {
				var value = sample.topics[name][field];
				max = Math.max(max, value);
				(series[name] = series[name] || []).push([sample.at, value]);
			});
		});
		max = roundScale(max);
		context.strokeStyle = '#d0d7de';
		context.fillStyle = '#57606a';
		context.font = '11px sans-serif';
		context.lineWidth = 1;
		for (var step = 0; step <= 4; step++) {
			var y = top + (height - top - bottom) * step / 4;
			context.beginPath();
			context.moveTo(left, y);
			context.lineTo(width - right, y);
			context.stroke();
			context.fillText((max * (4 - step) / 4).toLocaleString('en', { maximumFractionDigits: 2 }), 4, y + 4);
		}
		context.fillText(span >= 120000 ? '-' + Math.round(span / 60000) + ' min' : '-' + Math.round(span / 1000) + ' s',
			left, height - 6);
		context.fillText('now', width - right - 22, height - 6);
		var points = 0;
		var latest = Object.create(null);
		Object.keys(series).forEach(function (name) {
			context.strokeStyle = colorOf(name);
			context.lineWidth = 2;
			context.beginPath();
			series[name].forEach(function (point, index) {
				var x = left + (width - left - right) * (point[0] - from) / span;
				var y = top + (height - top - bottom) * (1 - point[1] / max);
				if (index === 0) {
					context.moveTo(x, y);
				}
				else {
					context.lineTo(x, y);
				}
				points++;
			});
			context.stroke();
			latest[name] = series[name][series[name].length - 1][1];
		});
		// what was drawn, for tests and tools that read the page
		canvas.dataset.points = String(points);
		canvas.dataset.samples = String(samples.length);
		canvas.dataset.latest = JSON.stringify(latest);
	}

	// one reading at a time: a refresh asked for while one runs runs after it
	function refresh() {
		if (refreshing) {
			again = true;
			return refreshing;
		}
		refreshing = read().then(function () {
			refreshing = null;
			if (again) {
				again = false;
				return refresh();
			}
		});
		return refreshing;
	}

	function read() {
		return get('/api/overview', seeded ? null : { history: 'true' }).then(function (overview) {
			showError('');
			renderOverview(overview);
			$('status').dataset.readAt = overview.queue.readAt;
			$('status').textContent = 'Updated ' + new Date(overview.queue.readAt).toLocaleTimeString()
				+ (live ? ', every ' + (config.refreshMillis / 1000) + ' s' : ', updates paused');
		}).catch(function (error) {
			showError('Cannot read the queue: ' + error.message);
		});
	}

	// reads every refresh interval while updates are on and the page is visible
	function schedule() {
		clearTimeout(timer);
		if (live && !document.hidden) {
			timer = setTimeout(function () {
				refresh().then(schedule);
			}, config.refreshMillis);
		}
	}

	// ---- find a job ----

	function field(list, name, value) {
		list.appendChild(el('dt', {}, name));
		list.appendChild(el('dd', { 'data-field': name.toLowerCase().replace(/ /g, '-') }, value));
	}

	function renderJob(job) {
		var list = el('dl', { 'class': 'job', 'data-id': job.id, 'data-topic': job.topic });
		field(list, 'State', job.state);
		field(list, 'Due', time(job.dueAt));
		field(list, 'Attempt', job.attempt + ' of ' + job.maxAttempts);
		if (job.reservedUntil) {
			field(list, 'Reserved until', time(job.reservedUntil));
		}
		if (job.diedAt) {
			field(list, 'Died at', time(job.diedAt));
		}
		if (job.finishedAt) {
			field(list, 'Finished at', time(job.finishedAt));
		}
		field(list, 'Last error', job.lastError || '–');
		field(list, 'Payload', config.showPayloads ? el('pre', {}, job.payload == null ? '–' : job.payload)
			: 'hidden (delayqueue.endpoint.show-payloads)');
		var actions = el('div', { 'class': 'actions' });
		if (job.state === 'DEAD') {
			actions.appendChild(actionButton('Replay', 'replay', 'Replay dead job ' + job.id + ' of topic ' + job.topic
				+ ' (delivered again at once)?', function () {
				return post('/api/replay', { topic: job.topic, id: job.id }).then(function () {
					findJob(job.topic, job.id);
					return 'Replayed ' + job.id;
				});
			}) || document.createTextNode(''));
		}
		if (job.state !== 'COMPLETED') {
			actions.appendChild(actionButton(job.state === 'DEAD' ? 'Delete' : 'Cancel', 'cancel',
				(job.state === 'DEAD' ? 'Delete dead job ' : 'Cancel job ') + job.id + ' of topic ' + job.topic
					+ '? It cannot be brought back.', function () {
					return post('/api/cancel', { topic: job.topic, id: job.id }).then(function () {
						$('find-result').replaceChildren(el('p', { 'class': 'gone' }, 'Job ' + job.id + ' is gone'));
						return 'Removed ' + job.id;
					});
				}) || document.createTextNode(''));
		}
		$('find-result').replaceChildren(list, actions);
	}

	function findJob(topic, id) {
		return get('/api/job', { topic: topic, id: id }).then(function (job) {
			showError('');
			renderJob(job);
		}).catch(function (error) {
			$('find-result').replaceChildren(el('p', { 'class': 'gone' }, error.message));
		});
	}

	// ---- dead jobs ----

	// the first page of a topic's dead jobs, or (with the cursor of the page before) the next
	function loadDead(topic, cursor) {
		var params = { topic: topic, limit: 20 };
		if (cursor) {
			params.cursor = cursor;
		}
		var rows = $('dead-jobs').tBodies[0];
		var read = ++dead.read; // only the latest read is shown
		$('dead-more').disabled = true;
		return get('/api/dead', params).then(function (view) {
			if (read !== dead.read) {
				return;
			}
			var page = view.deadJobs;
			showError('');
			if (!cursor || dead.topic !== topic) {
				rows.replaceChildren();
			}
			dead = { topic: topic, next: page.next || null, total: page.total, read: read };
			page.jobs.forEach(function (job) {
				rows.appendChild(el('tr', { 'data-id': job.id },
					el('th', { scope: 'row' }, job.id),
					el('td', { 'class': 'num' }, job.attempts + ' of ' + job.maxAttempts),
					el('td', {}, time(job.diedAt)),
					el('td', { 'class': 'error-text' }, job.lastError || '–'),
					el('td', {}, config.showPayloads ? el('code', {}, job.payload == null ? '–' : job.payload) : 'hidden'),
					el('td', { 'class': 'actions' },
						actionButton('Replay', 'replay', 'Replay dead job ' + job.id + ' of topic ' + topic + '?',
							function () {
								return post('/api/replay', { topic: topic, id: job.id }).then(function () {
									loadDead(topic);
									return 'Replayed ' + job.id;
								});
							}),
						actionButton('Delete', 'delete', 'Delete dead job ' + job.id + ' of topic ' + topic
							+ '? It cannot be brought back.', function () {
							return post('/api/cancel', { topic: topic, id: job.id }).then(function () {
								loadDead(topic);
								return 'Deleted ' + job.id;
							});
						}))));
			});
			var shown = rows.rows.length;
			$('dead-summary').textContent = shown === 0 ? 'No dead jobs in ' + topic
				: shown + ' of ' + number(page.total) + ' dead jobs of ' + topic + ', oldest deaths first';
			$('dead-more').hidden = !dead.next;
			$('dead-more').disabled = false;
			$('replay-all').hidden = config.readOnly || page.total === 0;
		}).catch(function (error) {
			$('dead-more').disabled = false;
			showError(error.message);
		});
	}

	// ---- waiting jobs ----

	// a page of a topic's DELAYED, READY or RESERVED jobs; with the cursor of the page before, the next
	function loadWaiting(topic, state, cursor) {
		var params = { topic: topic, state: state, limit: 20 };
		if (cursor) {
			params.cursor = cursor;
		}
		var rows = $('waiting-jobs').tBodies[0];
		var read = ++waiting.read;
		$('waiting-more').disabled = true;
		return get('/api/waiting', params).then(function (page) {
			if (read !== waiting.read) {
				return;
			}
			showError('');
			if (!cursor) {
				rows.replaceChildren();
			}
			waiting = { topic: topic, state: state, next: page.next || null, read: read };
			page.jobs.forEach(function (job) {
				var actions = el('td', { 'class': 'actions' });
				if (state === 'DELAYED') {
					actions.appendChild(actionButton('Run now', 'run', 'Run job ' + job.id + ' of topic ' + topic
						+ ' now?', function () {
						return post('/api/run', { topic: topic, id: job.id }).then(function () {
							loadWaiting(topic, state);
							return 'Made ' + job.id + ' due now';
						});
					}) || document.createTextNode(''));
				}
				actions.appendChild(actionButton('Cancel', 'cancel', 'Cancel job ' + job.id + ' of topic ' + topic
					+ '? It cannot be brought back.', function () {
					return post('/api/cancel', { topic: topic, id: job.id }).then(function () {
						loadWaiting(topic, state);
						return 'Cancelled ' + job.id;
					});
				}) || document.createTextNode(''));
				rows.appendChild(el('tr', { 'data-id': job.id },
					el('th', { scope: 'row' }, job.id),
					el('td', {}, time(job.dueAt)),
					el('td', {}, job.reservedUntil ? time(job.reservedUntil) : '–'),
					// the instance that holds a RESERVED job; unknown for a reservation made by 0.1.0
					el('td', { 'data-field': 'reserved-by' }, job.reservedBy || (state === 'RESERVED' ? 'unknown' : '–')),
					el('td', { 'class': 'num' }, job.attempt + ' of ' + job.maxAttempts),
					el('td', {}, config.showPayloads ? el('code', {}, job.payload == null ? '–' : job.payload) : 'hidden'),
					actions));
			});
			$('waiting-summary').textContent = rows.rows.length === 0 && !waiting.next ? 'No ' + state + ' jobs in '
				+ topic : rows.rows.length + ' of ' + number(page.total) + ' ' + state + ' jobs of ' + topic
				+ (state === 'RESERVED' ? ', earliest deadline first' : ', earliest due first');
			$('waiting-more').hidden = !waiting.next;
			$('waiting-more').disabled = false;
		}).catch(function (error) {
			$('waiting-more').disabled = false;
			showError(error.message);
		});
	}

	// ---- views ----

	function showView() {
		var view = (location.hash || '#overview').substring(1);
		if (['overview', 'find', 'dead', 'waiting'].indexOf(view) < 0) {
			view = 'overview';
		}
		['overview', 'find', 'dead', 'waiting'].forEach(function (name) {
			$('view-' + name).hidden = name !== view;
			var link = $('nav-' + name);
			if (name === view) {
				link.setAttribute('aria-current', 'page');
			}
			else {
				link.removeAttribute('aria-current');
			}
		});
		if (view === 'dead' && $('dead-topic').value) {
			loadDead($('dead-topic').value);
		}
	}

	function start() {
		var user = $('user');
		user.textContent = user.dataset.user ? 'Signed in as ' + user.dataset.user : '';
		$('mode').textContent = config.readOnly ? 'Read-only' : '';
		if (config.readOnly) {
			document.querySelectorAll('.write').forEach(function (control) { control.hidden = true; });
		}
		$('live').addEventListener('click', function () {
			live = !live;
			this.setAttribute('aria-pressed', String(live));
			this.textContent = live ? 'Pause updates' : 'Resume updates';
			if (live) {
				refresh().then(schedule);
			}
			else {
				clearTimeout(timer);
				$('status').textContent = 'Updates paused';
			}
		});
		$('find-form').addEventListener('submit', function (event) {
			event.preventDefault();
			findJob($('find-topic').value, $('find-id').value.trim());
		});
		$('dead-form').addEventListener('submit', function (event) {
			event.preventDefault();
			loadDead($('dead-topic').value);
		});
		$('dead-topic').addEventListener('change', function () {
			loadDead(this.value);
		});
		$('waiting-form').addEventListener('submit', function (event) {
			event.preventDefault();
			loadWaiting($('waiting-topic').value, $('waiting-state').value);
		});
		$('waiting-more').addEventListener('click', function () {
			loadWaiting(waiting.topic, waiting.state, waiting.next);
		});
		$('dead-more').addEventListener('click', function () {
			loadDead(dead.topic, dead.next);
		});
		$('replay-all').addEventListener('click', function () {
			var topic = dead.topic;
			if (!topic) {
				return;
			}
			confirmThen('Replay every dead job of topic ' + topic + ' (' + number(dead.total)
				+ ' when the table was read, and any that died since)?', function () {
				return post('/api/replay', { topic: topic }).then(function (done) {
					loadDead(topic);
					return 'Replayed ' + number(done.count) + ' jobs of ' + topic;
				});
			});
		});
		window.addEventListener('hashchange', showView);
		document.addEventListener('visibilitychange', function () {
			if (!document.hidden && live) {
				refresh().then(schedule);
			}
		});
		refresh().then(function () {
			showView();
			schedule();
		});
	}

	start();
}());
