"""Client of the delayqueue HTTP job API (Python 3.8+, standard library only).

Schedule, reserve (long polling), finish, fail, touch, run now, cancel and read the jobs of a
delayqueue - the same jobs Java services schedule with DelayedJobTemplate and consume with
@DelayedListener - and put, read, list, pause, resume, trigger and delete its recurring jobs.

    client = DelayQueueClient("http://localhost:8080/delayqueue", token="sample-token")
    client.add("mails", "welcome-42", {"user": 42}, delay=timedelta(days=7))
    for job in client.reserve("mails", max=10, wait=timedelta(seconds=20)):
        send_mail(job.body)
        client.finish(job)

Delivery is at least once: finish, fail or touch a job before its reserved_until, else it
is delivered again and its token is refused (StaleTokenError).

Every failure is a DelayQueueError: an answer that is not a success (BadRequestError,
UnauthorizedError, StaleTokenError, TooManyRequestsError, UnavailableError), or no answer at
all (UnreachableError, an UnavailableError: connection refused, unknown host, timeout).

Durations are datetime.timedelta, whole milliseconds (int) or ISO-8601 strings ("PT30S");
due times are datetime (timezone-aware), milliseconds since the epoch or ISO-8601 strings.

A payload is any JSON value, or RawJSON(text) to send JSON text as it is. Payloads come back as
Python values (body) and as their exact JSON text as stored (body_json, "bodyJson" in a dict):
json.dumps of a parsed body can change digits (1e400 becomes inf), key order and spacing.

    client.add("payments", "p-7", RawJSON('{"amount": 0.10, "id": 12345678901234567890}'), delay=0)
    job = client.reserve("payments")[0]
    job.body_json       # '{"amount": 0.10, "id": 12345678901234567890}'

    client.put_recurring("nightly-report", "reports", cron="0 0 2 * * *", zone="Europe/Berlin",
                         body={"report": "unpaid"})

Also a command-line tool: python3 delayqueue_client.py --help
"""

import argparse
import http.client
import json
import os
import re
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Dict, List, Optional, Union

__all__ = ["DelayQueueClient", "Job", "RawJSON", "DelayQueueError", "BadRequestError", "UnauthorizedError",
           "StaleTokenError", "TooManyRequestsError", "UnavailableError", "UnreachableError"]

Duration = Union[timedelta, int, str]
Instant = Union[datetime, int, str]


class DelayQueueError(Exception):
    """A request that failed: status (0 when no answer came), detail, the request field at fault,
    and retry_after, the seconds the server asks to wait before a retry (None when it did not say)."""

    def __init__(self, status: int, detail: str, field_name: Optional[str] = None,
                 retry_after: Optional[int] = None):
        super().__init__("HTTP %d: %s" % (status, detail) if status else detail)
        self.status = status
        self.detail = detail
        self.field = field_name
        self.retry_after = retry_after


class BadRequestError(DelayQueueError):
    """400: bad input, nothing was changed; .field names the request field at fault."""


class UnauthorizedError(DelayQueueError):
    """401: no token, or one the server does not accept."""


class StaleTokenError(DelayQueueError):
    """409: the reservation is no longer yours (redelivered, finished, cancelled or replaced)."""


class TooManyRequestsError(DelayQueueError):
    """429: reserve requests wait on too many topics already; retry after .retry_after seconds,
    or reserve without wait."""


class UnavailableError(DelayQueueError):
    """503 (or 502, 504 from a proxy): Redis is unreachable, too many reserve requests wait, or the
    application is stopping; retry after .retry_after seconds."""


class UnreachableError(UnavailableError):
    """No answer: the connection was refused, the host is unknown, or the answer did not come
    within the timeout; .status is 0. The request may have been carried out when the connection
    broke after it was sent: add keeps the first of two jobs with one id, and finish, fail and
    touch answer StaleTokenError when their first request went through."""


_ERRORS = {400: BadRequestError, 401: UnauthorizedError, 409: StaleTokenError, 429: TooManyRequestsError,
           502: UnavailableError, 503: UnavailableError, 504: UnavailableError}


class RawJSON:
    """A payload given as JSON text, sent as it is: its digits, escapes, key order and spacing
    are stored and answered byte for byte, where json.dumps of a Python value would change them.

    Raises TypeError when text is not a str, ValueError when it is not one JSON value. Only a
    whole body can be raw, not a value inside one.
    """

    __slots__ = ("text",)

    def __init__(self, text: str):
        if not isinstance(text, str):
            raise TypeError("RawJSON takes JSON text as a str, was %r" % (text,))
        json.loads(text)  # one JSON value, which cannot add fields to the request around it
        self.text = text

    def __repr__(self) -> str:
        return "RawJSON(%r)" % self.text


@dataclass
class Job:
    """A reserved job: finish, fail or touch it with its token before reserved_until.

    body is the payload as a Python value (JSON numbers as int and float), body_json its exact
    JSON text as stored (a text payload as a JSON string), None for bytes that are not UTF-8 text
    (raw["bodyBase64"]).
    """

    topic: str
    id: str
    token: int
    attempt: int
    max_attempts: int
    body: Any
    due_at: str
    reserved_until: str
    ttr: str
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)
    headers: Dict[str, str] = field(default_factory=dict)
    body_json: Optional[str] = field(repr=False, default=None)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Job":
        return cls(topic=data["topic"], id=data["id"], token=data["token"], attempt=data["attempt"],
                   max_attempts=data["maxAttempts"], body=data.get("body"), due_at=data["dueAt"],
                   reserved_until=data["reservedUntil"], ttr=data["ttr"], headers=data.get("headers", {}),
                   raw=data, body_json=data.get("bodyJson"))


def _duration(value: Duration) -> Union[int, str]:
    if isinstance(value, timedelta):
        return (value.days * 86_400_000) + (value.seconds * 1000) + (value.microseconds // 1000)
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError("a duration must be a timedelta, whole milliseconds or an ISO-8601 string, was %r" % (value,))
    return value


def _instant(value: Instant) -> Union[int, str]:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("due_at must be timezone-aware (a naive datetime has no defined instant)")
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError("an instant must be a datetime, epoch milliseconds or an ISO-8601 string, was %r" % (value,))
    return value


def _query_duration(value: Duration) -> str:
    return str(_duration(value))


_ISO_DURATION = re.compile(r"^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$")


def _seconds(value: Duration) -> float:
    """How long a wait lasts, to give the HTTP request that much more time."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, int) or value.isdigit():
        return int(value) / 1000.0
    match = _ISO_DURATION.match(value)
    if not match:
        return 60.0  # the server refuses it, or bounds it by delayqueue.http.max-wait
    days, hours, minutes, seconds = (float(part or 0) for part in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


class DelayQueueClient:
    """Talks to one delayqueue HTTP job API. Thread-safe: every call is one HTTP request."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # ------------------------------------------------------------------ producer

    def add(self, topic: str, id: str, body: Any, delay: Optional[Duration] = None,
            due_at: Optional[Instant] = None, ttr: Optional[Duration] = None,
            max_attempts: Optional[int] = None, replace: bool = False,
            headers: Optional[Dict[str, str]] = None, priority: Optional[int] = None) -> Dict[str, Any]:
        """Schedules a job: after delay, or at due_at (exactly one of them).

        body is any JSON value, or RawJSON(text) to store that JSON text byte for byte; a str is
        stored as its text, as a Java String payload is.
        headers are the job's own (a tenant, a correlation id): strings its listener reads with
        @Header, shown by get and reserve.
        priority is 0 (lowest) to 9 (highest), 5 when not given: among the READY jobs of its topic
        in its bucket a higher one is handed out first, FIFO within one.
        Returns {"created": bool, "state": ..., "dueAt": ...}: created is False when a job with
        this topic and id exists and was kept (pass replace=True to replace it).
        """
        request: Dict[str, Any] = {"topic": topic, "id": id, "body": body}
        if delay is not None:
            request["delay"] = _duration(delay)
        if due_at is not None:
            request["dueAt"] = _instant(due_at)
        if ttr is not None:
            request["ttr"] = _duration(ttr)
        if max_attempts is not None:
            request["maxAttempts"] = max_attempts
        if replace:
            request["onDuplicate"] = "REPLACE"
        if headers:
            request["headers"] = headers
        if priority is not None:
            request["priority"] = priority
        return self._call("POST", "/jobs", request)

    def cancel(self, topic: str, id: str) -> bool:
        """Cancels a job in any state; False when there was none."""
        try:
            self._call("DELETE", self._job_path(topic, id))
            return True
        except DelayQueueError as error:
            if error.status == 404:
                return False
            raise

    def run_now(self, topic: str, id: str) -> Optional[bool]:
        """Makes a waiting job due now: True when it was DELAYED, False when it was READY already
        (it keeps its place); None when there is no such job. A RESERVED or DEAD job is refused
        (BadRequestError naming id)."""
        answer = self._found("POST", self._job_path(topic, id) + "/run")
        return None if answer is None else answer["rescheduled"]

    def get(self, topic: str, id: str) -> Optional[Dict[str, Any]]:
        """Reads a job (state, attempts, due time, last error, body); None when there is none.

        "bodyJson" is the exact JSON text of "body", as Job.body_json is.
        """
        try:
            return self._call("GET", self._job_path(topic, id))
        except DelayQueueError as error:
            if error.status == 404:
                return None
            raise

    # ------------------------------------------------------------------ consumer

    def reserve(self, topic: str, max: int = 1, wait: Optional[Duration] = None,
                ttr: Optional[Duration] = None) -> List[Job]:
        """Takes up to max READY jobs of a topic, waiting up to wait for some (long polling).

        Returns the jobs, possibly none when the wait ran out.
        """
        query = {"max": str(max)}
        if wait is not None:
            query["wait"] = _query_duration(wait)
        if ttr is not None:
            query["ttr"] = _query_duration(ttr)
        path = "/topics/%s/reserve?%s" % (urllib.parse.quote(topic, safe=""), urllib.parse.urlencode(query))
        timeout = self.timeout + (_seconds(wait) if wait is not None else 0.0)
        answer = self._call("POST", path, timeout=timeout)
        return [Job.from_json(job) for job in answer["jobs"]]

    def finish(self, job: Job) -> None:
        """Finishes a reserved job (it is removed). Raises StaleTokenError when it is not yours."""
        self._call("POST", self._job_path(job.topic, job.id) + "/finish", {"token": job.token})

    def fail(self, job: Job, retry_in: Optional[Duration] = None, dead: bool = False,
             error: Optional[str] = None) -> str:
        """Fails a reserved job: delivered again after retry_in, or DEAD at once with dead=True.

        Returns "RETRYING", or "DEAD" when the job's attempts are used up (or dead=True).
        """
        request: Dict[str, Any] = {"token": job.token}
        if retry_in is not None:
            request["retryIn"] = _duration(retry_in)
        if dead:
            request["dead"] = True
        if error is not None:
            request["error"] = error
        return self._call("POST", self._job_path(job.topic, job.id) + "/fail", request)["result"]

    def touch(self, job: Job, ttr: Optional[Duration] = None) -> str:
        """Extends a reservation to now + ttr (the job's own TTR when None); returns the new deadline."""
        request: Dict[str, Any] = {"token": job.token}
        if ttr is not None:
            request["ttr"] = _duration(ttr)
        until = self._call("POST", self._job_path(job.topic, job.id) + "/touch", request)["reservedUntil"]
        job.reserved_until = until
        return until

    # ------------------------------------------------------------------ recurring jobs

    def put_recurring(self, name: str, topic: str, cron: Optional[str] = None, every: Optional[Duration] = None,
                      zone: Optional[str] = None, body: Any = None, headers: Optional[Dict[str, str]] = None,
                      ttr: Optional[Duration] = None, max_attempts: Optional[int] = None,
                      misfire: Optional[str] = None, misfire_threshold: Optional[Duration] = None,
                      max_catch_up: Optional[int] = None, overlap: Optional[str] = None,
                      fixed_delay: Optional[Duration] = None) -> Dict[str, Any]:
        """Creates or replaces the recurring job name: each tick of its schedule creates a job (an
        occurrence) of topic, with body (RawJSON too) and headers as add would.

        The schedule is cron (six fields, from seconds, as Spring's CronExpression reads them, or
        a macro such as "@daily") in zone (default UTC), every (a fixed rate, ticking at the
        multiples of the period since the epoch) or fixed_delay (the next occurrence is due this
        long after the previous one left the queue): exactly one of them. misfire says what ticks
        fired later than misfire_threshold do: "FIRE_ONCE" (one occurrence for them all, the
        default), "SKIP" or "FIRE_ALL" (one each, at most max_catch_up); overlap "SKIP" skips a
        tick while the previous occurrence still exists ("ALLOW", the default, does not).
        Options left None take the server's defaults: a put replaces the whole definition.
        Returns the recurring job (see get_recurring) with "result": "CREATED", "UPDATED" or
        "UNCHANGED".
        """
        request: Dict[str, Any] = {"topic": topic}
        if cron is not None:
            request["cron"] = cron
        if every is not None:
            request["every"] = _duration(every)
        if fixed_delay is not None:
            request["fixedDelay"] = _duration(fixed_delay)
        if zone is not None:
            request["zone"] = zone
        if body is not None:
            request["body"] = body
        if headers:
            request["headers"] = headers
        if ttr is not None:
            request["ttr"] = _duration(ttr)
        if max_attempts is not None:
            request["maxAttempts"] = max_attempts
        if misfire is not None:
            request["misfire"] = misfire
        if misfire_threshold is not None:
            request["misfireThreshold"] = _duration(misfire_threshold)
        if max_catch_up is not None:
            request["maxCatchUp"] = max_catch_up
        if overlap is not None:
            request["overlap"] = overlap
        return self._call("PUT", self._recurring_path(name), request)

    def get_recurring(self, name: str) -> Optional[Dict[str, Any]]:
        """Reads a recurring job (schedule, options, paused, nextFireTime, fired, lastOccurrence,
        headers, body and bodyJson, as get has them); None when there is none."""
        return self._found("GET", self._recurring_path(name))

    def list_recurring(self) -> List[Dict[str, Any]]:
        """Reads every recurring job, as get_recurring does."""
        return self._call("GET", "/recurring")["recurring"]

    def pause_recurring(self, name: str) -> bool:
        """Pauses a recurring job: its ticks create no occurrence until it is resumed; False when
        there is none."""
        return self._found("POST", self._recurring_path(name) + "/pause") is not None

    def resume_recurring(self, name: str) -> bool:
        """Resumes a paused recurring job; False when there is none."""
        return self._found("POST", self._recurring_path(name) + "/resume") is not None

    def trigger_recurring(self, name: str) -> Optional[str]:
        """Creates an occurrence now, paused or not, without changing the schedule; returns its id
        (read it with get(topic, id)), None when there is no such recurring job."""
        answer = self._found("POST", self._recurring_path(name) + "/trigger")
        return None if answer is None else answer["occurrence"]

    def delete_recurring(self, name: str) -> bool:
        """Deletes a recurring job (the occurrences it created already stay and run); False when
        there was none."""
        return self._found("DELETE", self._recurring_path(name)) is not None

    # ------------------------------------------------------------------ HTTP

    @staticmethod
    def _recurring_path(name: str) -> str:
        return "/recurring/%s" % urllib.parse.quote(name, safe="")

    def _found(self, method: str, path: str) -> Optional[Any]:
        """The answer to a request on one job or recurring job; None for a 404 (there is none)."""
        try:
            return self._call(method, path)
        except DelayQueueError as error:
            if error.status == 404:
                return None
            raise

    @staticmethod
    def _job_path(topic: str, id: str) -> str:
        return "/jobs/%s/%s" % (urllib.parse.quote(topic, safe=""), urllib.parse.quote(id, safe=""))

    def _call(self, method: str, path: str, body: Any = None, timeout: Optional[float] = None) -> Any:
        data = None if body is None else _encode(body).encode("utf-8")
        url = self.base_url + path
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", "Bearer " + self.token)
        timeout = timeout or self.timeout
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, text = response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            raise _refused(error) from None
        except (OSError, http.client.HTTPException) as error:
            # URLError (refused, unknown host, timeout while connecting), a timeout or a broken
            # connection while reading the answer
            raise UnreachableError(0, _unreachable(self.base_url, method, path, error, timeout)) from None
        try:
            return _decode(text)
        except ValueError:
            raise DelayQueueError(status, "%s %s answered %s, not JSON: is %s the API's base URL?"
                                  % (method, url, _excerpt(text), self.base_url)) from None


def _encode(request: Dict[str, Any]) -> str:
    """A request as JSON, its body as it is when that is RawJSON."""
    body = request.get("body")
    if not isinstance(body, RawJSON):
        return json.dumps(request)
    others = json.dumps({name: value for name, value in request.items() if name != "body"})
    return others[:-1] + ', "body": ' + body.text + "}"


def _decode(text: str) -> Any:
    """An answer as Python values, with "bodyJson", the exact text of "body", next to each body."""
    answer = json.loads(text)
    if isinstance(answer, dict):
        _add_body_json(answer, text, _BETWEEN.match(text).end())
    return answer


def _add_body_json(answer: Dict[str, Any], text: str, start: int) -> None:
    """Adds "bodyJson" to the object that starts at start, and to the objects in its arrays (a
    reserve's jobs, the recurring jobs)."""
    for name, value_start, value_end in _members(text, start):
        if name == "body":
            answer["bodyJson"] = text[value_start:value_end]
        elif text[value_start] == "[":
            for item, item_start in zip(answer[name], _elements(text, value_start)):
                if isinstance(item, dict):
                    _add_body_json(item, text, item_start)


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_SCALAR = re.compile(r'[^ \t\n\r,:\[\]{}"]+')
_BETWEEN = re.compile(r"[ \t\n\r,:]*")


def _value_end(text: str, start: int) -> int:
    """Where the JSON value that starts at start ends; text is valid JSON."""
    depth, i = 0, start
    while True:
        char = text[i]
        if char == '"':
            i = _STRING.match(text, i).end()
        elif char in "[{":
            depth, i = depth + 1, i + 1
        elif char in "]}":
            depth, i = depth - 1, i + 1
        else:
            i = _SCALAR.match(text, i).end()
        if depth == 0:
            return i
        i = _BETWEEN.match(text, i).end()


def _members(text: str, start: int):
    """The name, value start and value end of each member of the JSON object at start."""
    i = _BETWEEN.match(text, start + 1).end()
    while text[i] != "}":
        name_end = _value_end(text, i)
        value_start = _BETWEEN.match(text, name_end).end()
        value_end = _value_end(text, value_start)
        yield json.loads(text[i:name_end]), value_start, value_end
        i = _BETWEEN.match(text, value_end).end()


def _elements(text: str, start: int):
    """The start of each element of the JSON array at start."""
    i = _BETWEEN.match(text, start + 1).end()
    while text[i] != "]":
        yield i
        i = _BETWEEN.match(text, _value_end(text, i)).end()


def _refused(error: urllib.error.HTTPError) -> DelayQueueError:
    """The error for an answer that is not a success: the problem's detail and field, or an
    excerpt of the answer when it is not a problem (such as a proxy's error page)."""
    text = error.read().decode("utf-8", "replace")
    detail, field_name = None, None
    try:
        problem = json.loads(text)
        if isinstance(problem, dict):
            detail, field_name = problem.get("detail"), problem.get("field")
    except ValueError:
        pass
    if not detail:
        detail = "%s %s: %s" % (error.code, error.reason, _excerpt(text)) if text.strip() else str(error.reason)
    retry_after = error.headers.get("Retry-After") if error.headers else None
    seconds = int(retry_after) if retry_after and retry_after.strip().isdigit() else None
    return _ERRORS.get(error.code, DelayQueueError)(error.code, detail, field_name, seconds)


def _unreachable(base_url: str, method: str, path: str, error: BaseException, timeout: float) -> str:
    """Why no answer came, naming the API's URL and the request."""
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    request = "(%s %s)" % (method, path)
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return "no answer from the delayqueue API at %s within %g s %s" % (base_url, timeout, request)
    if isinstance(reason, http.client.RemoteDisconnected):
        return "the delayqueue API at %s closed the connection without an answer %s" % (base_url, request)
    if isinstance(reason, OSError) and reason.strerror:
        reason = reason.strerror
    return "could not reach the delayqueue API at %s %s: %s" % (base_url, request, reason)


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 200 else text[:200] + "...")


def _main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="Talk to a delayqueue HTTP job API.")
    parser.add_argument("--url", default=os.environ.get("DELAYQUEUE_URL", "http://localhost:8080/delayqueue"),
                        help="the API's base URL (env DELAYQUEUE_URL)")
    parser.add_argument("--token", default=os.environ.get("DELAYQUEUE_TOKEN"),
                        help="the bearer token (env DELAYQUEUE_TOKEN)")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="schedule a job")
    add.add_argument("topic")
    add.add_argument("id")
    add.add_argument("body", type=RawJSON, help="the payload, as JSON (sent as it is)")
    add.add_argument("--delay", default=None, help="ISO-8601 duration or milliseconds (default: due now)")
    add.add_argument("--due-at", default=None, help="ISO-8601 instant or epoch milliseconds")
    add.add_argument("--ttr", default=None)
    add.add_argument("--max-attempts", type=int, default=None)
    add.add_argument("--replace", action="store_true")
    reserve = commands.add_parser("reserve", help="reserve jobs and print them as JSON lines")
    reserve.add_argument("topic")
    reserve.add_argument("--max", type=int, default=1)
    reserve.add_argument("--wait", default=None)
    reserve.add_argument("--ttr", default=None)
    reserve.add_argument("--finish", action="store_true", help="finish each job after printing it")
    for name in ("cancel", "run", "get"):
        command = commands.add_parser(name, help=name + " a job" + (" now" if name == "run" else ""))
        command.add_argument("topic")
        command.add_argument("id")
    args = parser.parse_args(argv)

    client = DelayQueueClient(args.url, token=args.token)
    try:
        if args.command == "add":
            delay = args.delay if args.delay is not None or args.due_at is not None else "PT0S"
            print(json.dumps(client.add(args.topic, args.id, args.body, delay=delay, due_at=args.due_at,
                                        ttr=args.ttr, max_attempts=args.max_attempts, replace=args.replace)))
        elif args.command == "reserve":
            for job in client.reserve(args.topic, max=args.max, wait=args.wait, ttr=args.ttr):
                print(json.dumps(job.raw))
                if args.finish:
                    client.finish(job)
        elif args.command == "cancel":
            print(json.dumps({"cancelled": client.cancel(args.topic, args.id)}))
            return 0
        elif args.command == "run":
            rescheduled = client.run_now(args.topic, args.id)
            print(json.dumps({"rescheduled": rescheduled}))
            return 0 if rescheduled is not None else 1
        else:
            job = client.get(args.topic, args.id)
            print(json.dumps(job))
            return 0 if job is not None else 1
    except DelayQueueError as error:
        print(json.dumps({"status": error.status, "field": error.field, "detail": error.detail}), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main())
