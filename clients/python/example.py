"""A worker in Python for jobs of a Java service, and a producer of jobs for it.

Run the sample application (see the README), then:

    python3 clients/python/example.py

It schedules a reminder due in 2 seconds, waits for it with a long poll, handles and
finishes it, and shows a failed job being retried.
"""

import os
import sys
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from delayqueue_client import DelayQueueClient, UnreachableError  # noqa: E402

client = DelayQueueClient(os.environ.get("DELAYQUEUE_URL", "http://localhost:8080/delayqueue"),
                          token=os.environ.get("DELAYQUEUE_TOKEN", "sample-token"))
topic = "py-reminders"
job_id = "reminder-%d" % int(time.time())


def main():
    print("add:", client.add(topic, job_id, {"user": 42, "text": "Your trial ends tomorrow"},
                             delay=timedelta(seconds=2), max_attempts=3))

    # long poll: the request waits on the server and returns as soon as the job is due
    for job in client.reserve(topic, max=10, wait=timedelta(seconds=10)):
        print("reserved: %s attempt %d/%d body=%s" % (job.id, job.attempt, job.max_attempts, job.body))
        # a first attempt that fails: the job comes back after the back-off, attempt counted
        print("fail:", client.fail(job, retry_in=timedelta(seconds=1), error="mail server busy"))

    for job in client.reserve(topic, max=10, wait=timedelta(seconds=10)):
        print("reserved again: %s attempt %d" % (job.id, job.attempt))
        client.finish(job)
        print("finished; the job is gone:", client.get(topic, job.id) is None)


if __name__ == "__main__":
    try:
        main()
    except UnreachableError as error:
        sys.exit("%s\nIs the sample application running? See the README." % error)
