"""Tests of delayqueue_client.py against a running application with the HTTP job API.

    DELAYQUEUE_URL=http://localhost:8080/delayqueue DELAYQUEUE_TOKEN=sample-token \\
        python3 -m unittest -v test_delayqueue_client.py

The delayqueue build runs them against the sample application (SampleClientsTests).
With DELAYQUEUE_ACTUATOR_URL (such as http://demo:demo-password@localhost:8080/actuator) the
dead jobs are also read from the application's delayqueue actuator endpoint.
FailureTest needs no application: python3 -m unittest -v test_delayqueue_client.FailureTest
"""

import base64
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse
import urllib.request
import uuid
import zlib
from datetime import datetime, timedelta, timezone

from delayqueue_client import (BadRequestError, DelayQueueClient, DelayQueueError, RawJSON, StaleTokenError,
                               TooManyRequestsError, UnauthorizedError, UnavailableError, UnreachableError)

URL = os.environ.get("DELAYQUEUE_URL", "http://localhost:8080/delayqueue")
TOKEN = os.environ.get("DELAYQUEUE_TOKEN", "sample-token")
ACTUATOR_URL = os.environ.get("DELAYQUEUE_ACTUATOR_URL")

# JSON texts that json.loads and json.dumps would change: digits, 1e400, -0, 1.0, key order,
# spacing, escapes; the last one a JSON string
EXACT_PAYLOADS = ["0.1", "1e400", "-0", "1.0", "12345678901234567890",
                  '{"b":' * 40 + '{"z": [0.10000000000000000001, 1E-7, {}], "a": null}' + "}" * 40,
                  '{"text": "h\\u00e9llo w\u00f6rld \u2603 \u65e5\u672c \U0001F600", "emoji": "\\ud83d\\ude00"}',
                  '{ "spaced" : [ 1 ,\n\t2 ] }', '"a JSON string: h\u00e9llo \\"quoted\\""']


def dead_job_page(topic):
    """The actuator endpoint's page of a topic's dead jobs."""
    parts = urllib.parse.urlsplit(ACTUATOR_URL)
    request = urllib.request.Request("%s://%s:%d%s/delayqueue/%s" % (
        parts.scheme, parts.hostname, parts.port, parts.path, urllib.parse.quote(topic, safe="")))
    credentials = "%s:%s" % (urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password))
    request.add_header("Authorization", "Basic " + base64.b64encode(credentials.encode()).decode())
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read().decode("utf-8"))["deadJobs"]["jobs"]


def same_bucket_ids(topic, count, buckets):
    """Ids whose jobs share a bucket: the server puts a job in crc32("<topic>:<id>") mod buckets."""
    ids, i = [], 0
    while len(ids) < count:
        candidate = "p%d" % i
        if zlib.crc32(("%s:%s" % (topic, candidate)).encode()) % buckets == zlib.crc32(
                ("%s:p0" % topic).encode()) % buckets:
            ids.append(candidate)
        i += 1
    return ids


class DelayQueueClientTest(unittest.TestCase):

    def setUp(self):
        self.client = DelayQueueClient(URL, token=TOKEN)
        self.topic = "py-" + uuid.uuid4().hex[:12]

    def test_add_reserve_finish_round_trip(self):
        created = self.client.add(self.topic, "j-1", {"user": 42, "tags": ["a", "b"]}, delay=0,
                                  headers={"tenant": "acme"})
        self.assertTrue(created["created"])
        self.assertEqual("READY", created["state"])
        self.client.add(self.topic, "j-2", "plain text", delay=timedelta(0))

        jobs = self.client.reserve(self.topic, max=10, wait=timedelta(seconds=5))
        self.assertEqual({"j-1", "j-2"}, {job.id for job in jobs})
        by_id = {job.id: job for job in jobs}
        self.assertEqual({"user": 42, "tags": ["a", "b"]}, by_id["j-1"].body)
        self.assertEqual("plain text", by_id["j-2"].body)
        self.assertEqual(1, by_id["j-1"].attempt)
        self.assertEqual({"tenant": "acme"}, by_id["j-1"].headers)
        self.assertEqual({}, by_id["j-2"].headers)
        for job in jobs:
            self.client.finish(job)
        self.assertIsNone(self.client.get(self.topic, "j-1"))

    def test_duplicate_is_kept_unless_replaced(self):
        self.client.add(self.topic, "d", 1, delay=timedelta(hours=1))
        kept = self.client.add(self.topic, "d", 2, delay=0)
        self.assertFalse(kept["created"])
        self.assertEqual("DELAYED", kept["state"])
        replaced = self.client.add(self.topic, "d", 2, due_at=datetime.now(timezone.utc), replace=True)
        self.assertTrue(replaced["created"])
        self.assertEqual(2, self.client.get(self.topic, "d")["body"])

    def test_long_poll_answers_when_the_job_becomes_due(self):
        self.client.add(self.topic, "soon", {"n": 1}, delay="PT1S")
        start = time.monotonic()
        jobs = self.client.reserve(self.topic, wait="PT10S")
        elapsed = time.monotonic() - start
        self.assertEqual(["soon"], [job.id for job in jobs])
        self.assertGreater(elapsed, 0.5)
        self.assertLess(elapsed, 5.0)
        self.client.finish(jobs[0])

    def test_reserve_answers_no_jobs_when_the_wait_runs_out(self):
        start = time.monotonic()
        self.assertEqual([], self.client.reserve(self.topic, max=5, wait=500))
        self.assertGreaterEqual(time.monotonic() - start, 0.5)

    def test_a_stale_token_is_refused(self):
        self.client.add(self.topic, "s", 1, delay=0)
        first = self.client.reserve(self.topic, ttr=300)[0]
        second = self.client.reserve(self.topic, wait="PT5S", ttr="PT60S")[0]
        self.assertEqual(2, second.attempt)
        with self.assertRaises(StaleTokenError) as refused:
            self.client.finish(first)
        self.assertEqual(409, refused.exception.status)
        with self.assertRaises(StaleTokenError):
            self.client.touch(first)
        self.client.finish(second)

    def test_fail_retries_then_the_job_is_dead(self):
        self.client.add(self.topic, "f", {"x": 1}, delay=0, max_attempts=2, ttr=timedelta(seconds=30))
        job = self.client.reserve(self.topic, wait=timedelta(seconds=5))[0]
        until = self.client.touch(job, ttr=timedelta(minutes=10))
        self.assertEqual(until, job.reserved_until)
        self.assertEqual("RETRYING", self.client.fail(job, retry_in=0, error="partner down"))
        job = self.client.reserve(self.topic, wait=timedelta(seconds=5))[0]
        self.assertEqual(2, job.attempt)
        self.assertEqual("DEAD", self.client.fail(job, retry_in=timedelta(seconds=1), error="still down"))
        dead = self.client.get(self.topic, "f")
        self.assertEqual("DEAD", dead["state"])
        self.assertEqual("still down", dead["lastError"])

    def test_raw_json_comes_back_byte_for_byte(self):
        sent = {"x%d" % i: payload for i, payload in enumerate(EXACT_PAYLOADS)}
        for job_id, payload in sent.items():
            self.client.add(self.topic, job_id, RawJSON(payload), delay=0)
            self.assertEqual(payload, self.client.get(self.topic, job_id)["bodyJson"])
        jobs = []
        while len(jobs) < len(sent):
            jobs += self.client.reserve(self.topic, max=len(sent), wait="PT5S")
        self.assertEqual(sent, {job.id: job.body_json for job in jobs})
        for job in jobs:
            self.assertEqual("DEAD", self.client.fail(job, dead=True))
        self.assertEqual(sent, {job_id: self.client.get(self.topic, job_id)["bodyJson"] for job_id in sent})
        if ACTUATOR_URL:
            # the page shows each payload as text: a JSON string's text, any other JSON as it is
            texts = {job_id: json.loads(payload) if payload.startswith('"') else payload
                     for job_id, payload in sent.items()}
            self.assertEqual(texts, {job["id"]: job["payload"] for job in dead_job_page(self.topic)})

    def test_a_higher_priority_is_reserved_first(self):
        # priorities order the jobs of one bucket: three ids that share one whether the server
        # has 1 bucket (a new namespace on one Redis server) or 2, 4, 8 or 16
        low, plain, urgent = same_bucket_ids(self.topic, 3, 16)
        self.client.add(self.topic, low, 1, delay=0, priority=1)
        self.client.add(self.topic, plain, 2, delay=0)
        self.client.add(self.topic, urgent, 3, delay=0, priority=9)
        self.assertEqual(9, self.client.get(self.topic, urgent)["priority"])
        self.assertEqual(5, self.client.get(self.topic, plain)["priority"])
        taken = []
        while len(taken) < 3:
            jobs = self.client.reserve(self.topic, wait="PT5S", max=3)
            taken += jobs
        self.assertEqual([urgent, plain, low], [job.id for job in taken])
        for job in taken:
            self.client.finish(job)
        with self.assertRaises(BadRequestError) as refused:
            self.client.add(self.topic, "bad", 1, delay=0, priority=10)
        self.assertEqual("priority", refused.exception.field)

    def test_cancel_prevents_delivery(self):
        self.client.add(self.topic, "c", 1, delay=300)
        self.assertTrue(self.client.cancel(self.topic, "c"))
        self.assertFalse(self.client.cancel(self.topic, "c"))
        self.assertIsNone(self.client.get(self.topic, "c"))
        self.assertEqual([], self.client.reserve(self.topic, wait="PT1S"))

    def test_run_now_makes_a_delayed_job_due(self):
        self.client.add(self.topic, "r", 1, delay=timedelta(hours=1))
        self.assertTrue(self.client.run_now(self.topic, "r"))
        jobs = self.client.reserve(self.topic, wait="PT5S")
        self.assertEqual(["r"], [job.id for job in jobs])
        with self.assertRaises(BadRequestError) as reserved:
            self.client.run_now(self.topic, "r")
        self.assertEqual("id", reserved.exception.field)
        self.assertEqual("RESERVED", self.client.get(self.topic, "r")["state"])
        self.client.finish(jobs[0])
        self.assertIsNone(self.client.run_now(self.topic, "r"))
        self.client.add(self.topic, "due", 1, delay=0)
        self.assertEqual("READY", self.client.get(self.topic, "due")["state"])
        self.assertFalse(self.client.run_now(self.topic, "due"))
        self.assertTrue(self.client.cancel(self.topic, "due"))

    def test_bad_input_names_the_field(self):
        with self.assertRaises(BadRequestError) as bad_topic:
            self.client.add("bad topic!", "x", 1, delay=0)
        self.assertEqual("topic", bad_topic.exception.field)
        with self.assertRaises(BadRequestError) as bad_delay:
            self.client.add(self.topic, "x", 1, delay="soon")
        self.assertEqual("delay", bad_delay.exception.field)
        with self.assertRaises(BadRequestError) as bad_max:
            self.client.reserve(self.topic, max=0)
        self.assertEqual("max", bad_max.exception.field)
        self.assertIsNone(self.client.get(self.topic, "x"))

    def test_a_wrong_token_is_unauthorized(self):
        with self.assertRaises(UnauthorizedError) as refused:
            DelayQueueClient(URL, token="not-the-token").add(self.topic, "x", 1, delay=0)
        self.assertEqual(401, refused.exception.status)
        with self.assertRaises(UnauthorizedError):
            DelayQueueClient(URL).get(self.topic, "x")
        self.assertIsNone(self.client.get(self.topic, "x"))

    def test_ids_are_sent_percent_encoded(self):
        job_id = "order:42 ü"
        self.client.add(self.topic, job_id, 1, delay=0)
        self.assertEqual(job_id, self.client.get(self.topic, job_id)["id"])
        job = self.client.reserve(self.topic)[0]
        self.assertEqual(job_id, job.id)
        self.client.finish(job)

    def test_recurring_jobs_are_put_read_paused_triggered_and_deleted(self):
        name = "py-rec-" + uuid.uuid4().hex[:12]
        self.addCleanup(self.client.delete_recurring, name)
        nightly = dict(cron="0 0 3 1 1 *", zone="Europe/Berlin", body={"report": "unpaid"},
                       headers={"tenant": "acme"}, max_attempts=2, misfire="SKIP", overlap="SKIP")
        created = self.client.put_recurring(name, self.topic, **nightly)
        self.assertEqual("CREATED", created["result"])
        self.assertEqual(name, created["name"])
        self.assertEqual(self.topic, created["topic"])
        self.assertEqual("0 0 3 1 1 *", created["cron"])
        self.assertEqual("Europe/Berlin", created["zone"])
        self.assertEqual({"report": "unpaid"}, created["body"])
        self.assertEqual({"tenant": "acme"}, created["headers"])
        self.assertEqual("SKIP", created["misfire"])
        self.assertFalse(created["paused"])
        self.assertTrue(created["nextFireTime"])
        self.assertEqual("UNCHANGED", self.client.put_recurring(name, self.topic, **nightly)["result"])
        updated = self.client.put_recurring(name, self.topic, every=timedelta(hours=6))
        self.assertEqual("UPDATED", updated["result"])
        self.assertEqual("PT6H", updated["every"])
        self.assertNotIn("cron", updated)

        read = self.client.get_recurring(name)
        self.assertEqual("PT6H", read["every"])
        self.assertEqual(updated["version"], read["version"])
        self.assertNotIn("result", read)
        self.assertIn(name, [recurring["name"] for recurring in self.client.list_recurring()])

        self.assertTrue(self.client.pause_recurring(name))
        self.assertTrue(self.client.get_recurring(name)["paused"])
        occurrence = self.client.trigger_recurring(name)
        self.addCleanup(self.client.cancel, self.topic, occurrence)
        self.assertTrue(occurrence.startswith(name + "@"), occurrence)
        self.assertEqual("READY", self.client.get(self.topic, occurrence)["state"])
        self.assertTrue(self.client.resume_recurring(name))
        self.assertFalse(self.client.get_recurring(name)["paused"])
        delayed = self.client.put_recurring(name, self.topic, fixed_delay=timedelta(hours=1))
        self.assertEqual("UPDATED", delayed["result"])
        self.assertEqual("PT1H", delayed["fixedDelay"])

        self.assertTrue(self.client.delete_recurring(name))
        self.assertIsNone(self.client.get_recurring(name))
        self.assertFalse(self.client.delete_recurring(name))
        self.assertFalse(self.client.pause_recurring(name))
        self.assertIsNone(self.client.trigger_recurring(name))

    def test_a_bad_cron_names_the_field(self):
        name = "py-rec-" + uuid.uuid4().hex[:12]
        self.addCleanup(self.client.delete_recurring, name)
        with self.assertRaises(BadRequestError) as bad_cron:
            self.client.put_recurring(name, self.topic, cron="0 61 * * * *")
        self.assertEqual("cron", bad_cron.exception.field)
        self.assertIsNone(self.client.get_recurring(name))


class _Answers(http.server.BaseHTTPRequestHandler):
    """Answers GET /jobs/t/<status> with that status, as the API or a proxy in front of it would."""

    ANSWERS = {
        "429": ("application/problem+json", {"Retry-After": "1"},
                {"status": 429, "detail": "reserve requests wait on 100 topics already"}),
        "503": ("application/problem+json", {"Retry-After": "3"},
                {"status": 503, "detail": "the queue's Redis is unreachable; retry later"}),
        "502": ("text/html", {}, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
        "500": ("text/plain", {}, ""),
        "200": ("text/html", {}, "<html><body>Welcome</body></html>"),
    }

    def do_GET(self):
        status = self.path.rsplit("/", 1)[-1]
        content_type, headers, body = self.ANSWERS[status]
        data = (json.dumps(body) if isinstance(body, dict) else body).encode("utf-8")
        self.send_response(int(status))
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class FailureTest(unittest.TestCase):
    """No answer, or answers that are not a success, as the client's own errors; no application needed."""

    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.answers = DelayQueueClient("http://127.0.0.1:%d/delayqueue" % cls.server.server_port)

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    @staticmethod
    def _closed_port():
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            return free.getsockname()[1]

    def test_a_server_that_is_down_is_unreachable_naming_the_url(self):
        url = "http://127.0.0.1:%d/delayqueue" % self._closed_port()
        with self.assertRaises(UnreachableError) as down:
            DelayQueueClient(url).add("t", "x", 1, delay=0)
        self.assertEqual(0, down.exception.status)
        self.assertIn("could not reach the delayqueue API at " + url + " (POST /jobs)", str(down.exception))
        self.assertIn("refused", str(down.exception))
        self.assertIsInstance(down.exception, UnavailableError)
        self.assertIsInstance(down.exception, DelayQueueError)

    def test_an_unknown_host_is_unreachable(self):
        with self.assertRaises(UnreachableError) as unknown:
            DelayQueueClient("http://no-such-host.invalid/delayqueue").get("t", "x")
        self.assertIn("http://no-such-host.invalid/delayqueue (GET /jobs/t/x)", str(unknown.exception))

    def test_no_answer_within_the_timeout_is_unreachable(self):
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(1)  # the connection is made, no answer ever comes
            url = "http://127.0.0.1:%d/delayqueue" % silent.getsockname()[1]
            with self.assertRaises(UnreachableError) as slow:
                DelayQueueClient(url, timeout=0.3).get("t", "x")
        self.assertIn("no answer from the delayqueue API at " + url + " within 0.3 s", str(slow.exception))

    def test_503_is_unavailable_with_retry_after(self):
        with self.assertRaises(UnavailableError) as unavailable:
            self.answers.get("t", "503")
        self.assertNotIsInstance(unavailable.exception, UnreachableError)
        self.assertEqual(503, unavailable.exception.status)
        self.assertEqual(3, unavailable.exception.retry_after)
        self.assertEqual("HTTP 503: the queue's Redis is unreachable; retry later", str(unavailable.exception))

    def test_429_is_too_many_requests_with_retry_after(self):
        with self.assertRaises(TooManyRequestsError) as refused:
            self.answers.get("t", "429")
        self.assertEqual(1, refused.exception.retry_after)

    def test_a_proxy_error_page_is_unavailable_with_an_excerpt(self):
        with self.assertRaises(UnavailableError) as proxy:
            self.answers.get("t", "502")
        self.assertEqual(502, proxy.exception.status)
        self.assertIsNone(proxy.exception.retry_after)
        self.assertIn("502 Bad Gateway", proxy.exception.detail)

    def test_a_server_error_without_a_body_is_a_delay_queue_error(self):
        with self.assertRaises(DelayQueueError) as failed:
            self.answers.get("t", "500")
        self.assertEqual(500, failed.exception.status)
        self.assertEqual("Internal Server Error", failed.exception.detail)

    def test_an_answer_that_is_not_json_names_the_base_url(self):
        with self.assertRaises(DelayQueueError) as wrong:
            self.answers.get("t", "200")
        self.assertIn("not JSON: is http://127.0.0.1:%d/delayqueue the API's base URL?" % self.server.server_port,
                      str(wrong.exception))

    def test_the_command_line_reports_a_server_that_is_down_without_a_traceback(self):
        url = "http://127.0.0.1:%d/delayqueue" % self._closed_port()
        run = subprocess.run([sys.executable, "delayqueue_client.py", "--url", url, "get", "t", "x"],
                             cwd=os.path.dirname(os.path.abspath(__file__)), capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(2, run.returncode)
        self.assertNotIn("Traceback", run.stderr)
        self.assertEqual(0, json.loads(run.stderr)["status"])
        self.assertIn("could not reach the delayqueue API at " + url, json.loads(run.stderr)["detail"])


if __name__ == "__main__":
    unittest.main()
