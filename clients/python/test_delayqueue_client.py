"""Tests of delayqueue_client.py against a running application with the HTTP job API.

    DELAYQUEUE_URL=http://localhost:8080/delayqueue DELAYQUEUE_TOKEN=sample-token \\
        python3 -m unittest -v test_delayqueue_client.py

The delayqueue build runs them against the sample application (SampleClientsTests).
"""

import os
import time
import unittest
import uuid
from datetime import datetime, timedelta, timezone

from delayqueue_client import (BadRequestError, DelayQueueClient, StaleTokenError, UnauthorizedError)

URL = os.environ.get("DELAYQUEUE_URL", "http://localhost:8080/delayqueue")
TOKEN = os.environ.get("DELAYQUEUE_TOKEN", "sample-token")


class DelayQueueClientTest(unittest.TestCase):

    def setUp(self):
        self.client = DelayQueueClient(URL, token=TOKEN)
        self.topic = "py-" + uuid.uuid4().hex[:12]

    def test_add_reserve_finish_round_trip(self):
        created = self.client.add(self.topic, "j-1", {"user": 42, "tags": ["a", "b"]}, delay=0)
        self.assertTrue(created["created"])
        self.assertEqual("READY", created["state"])
        self.client.add(self.topic, "j-2", "plain text", delay=timedelta(0))

        jobs = self.client.reserve(self.topic, max=10, wait=timedelta(seconds=5))
        self.assertEqual({"j-1", "j-2"}, {job.id for job in jobs})
        by_id = {job.id: job for job in jobs}
        self.assertEqual({"user": 42, "tags": ["a", "b"]}, by_id["j-1"].body)
        self.assertEqual("plain text", by_id["j-2"].body)
        self.assertEqual(1, by_id["j-1"].attempt)
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

    def test_cancel_prevents_delivery(self):
        self.client.add(self.topic, "c", 1, delay=300)
        self.assertTrue(self.client.cancel(self.topic, "c"))
        self.assertFalse(self.client.cancel(self.topic, "c"))
        self.assertIsNone(self.client.get(self.topic, "c"))
        self.assertEqual([], self.client.reserve(self.topic, wait="PT1S"))

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


if __name__ == "__main__":
    unittest.main()
