<?php

/**
 * Client of the delayqueue HTTP job API (PHP 8.1+, no extension beyond json, no framework).
 *
 * Schedule, reserve (long polling), finish, fail, touch, run now, cancel and read the jobs of a
 * delayqueue - the same jobs Java services schedule with DelayedJobTemplate and consume with
 * @DelayedListener - and put, read, list, pause, resume, trigger and delete its recurring jobs.
 *
 *     $client = new DelayQueue\DelayQueueClient('http://localhost:8080/delayqueue', 'sample-token');
 *     $client->add('mails', 'welcome-42', ['user' => 42], delay: 'P7D');
 *     foreach ($client->reserve('mails', max: 10, wait: 'PT20S') as $job) {
 *         sendMail($job->body);
 *         $client->finish($job);
 *     }
 *     $client->putRecurring('nightly-report', 'reports', cron: '0 0 2 * * *', zone: 'Europe/Berlin',
 *         body: ['report' => 'unpaid']);
 *
 * Delivery is at least once: finish, fail or touch a job before its reservedUntil, else it is
 * delivered again and its token is refused (StaleTokenException).
 *
 * Every failure is a DelayQueueException: an answer that is not a success (BadRequestException,
 * UnauthorizedException, StaleTokenException, TooManyRequestsException, UnavailableException),
 * or no answer at all (UnreachableException, an UnavailableException: connection refused,
 * unknown host, timeout).
 *
 * Durations are whole milliseconds (int) or ISO-8601 strings ('PT30S'); due times are
 * DateTimeInterface, epoch milliseconds or ISO-8601 strings. JSON objects come back as
 * associative arrays; send an empty object as new \stdClass() (an empty array is a JSON list).
 *
 * A payload is any JSON value, or new RawJson($text) to send JSON text as it is. Payloads come
 * back as PHP values ($job->body, 'body') and as their exact JSON text as stored ($job->bodyJson,
 * 'bodyJson'): json_decode can change digits (a 20-digit integer becomes a float, 1e400 INF).
 *
 *     $client->add('payments', 'p-7', new DelayQueue\RawJson('{"amount": 0.10}'), delay: 0);
 *     $client->reserve('payments')[0]->bodyJson;    // '{"amount": 0.10}'
 */

declare(strict_types=1);

namespace DelayQueue;

/**
 * A request that failed: $status (0 when no answer came), $detail, the request $field at fault,
 * and $retryAfter, the seconds the server asks to wait before a retry (null when it did not say).
 */
class DelayQueueException extends \RuntimeException
{
    public function __construct(public readonly int $status, public readonly string $detail,
                                public readonly ?string $field = null, public readonly ?int $retryAfter = null)
    {
        parent::__construct($status !== 0 ? "HTTP $status: $detail" : $detail, $status);
    }
}

/** 400: bad input, nothing was changed; $field names the request field at fault. */
class BadRequestException extends DelayQueueException
{
}

/** 401: no token, or one the server does not accept. */
class UnauthorizedException extends DelayQueueException
{
}

/** 409: the reservation is no longer yours (redelivered, finished, cancelled or replaced). */
class StaleTokenException extends DelayQueueException
{
}

/**
 * 429: reserve requests wait on too many topics already; retry after $retryAfter seconds, or
 * reserve without wait.
 */
class TooManyRequestsException extends DelayQueueException
{
}

/**
 * 503 (or 502, 504 from a proxy): Redis is unreachable, too many reserve requests wait, or the
 * application is stopping; retry after $retryAfter seconds.
 */
class UnavailableException extends DelayQueueException
{
}

/**
 * No answer: the connection was refused, the host is unknown, or the answer did not come within
 * the timeout; $status is 0. The request may have been carried out when the connection broke
 * after it was sent: add keeps the first of two jobs with one id, and finish, fail and touch
 * answer StaleTokenException when their first request went through.
 */
class UnreachableException extends UnavailableException
{
}

/**
 * A payload given as JSON text, sent as it is: its digits, escapes, key order and spacing are
 * stored and answered byte for byte, where json_encode of a PHP value would change them. Only a
 * whole body can be raw, not a value inside one.
 */
final class RawJson implements \JsonSerializable
{
    /** @throws \JsonException when $text is not one JSON value */
    public function __construct(public readonly string $text)
    {
        // one JSON value, which cannot add fields to the request around it
        json_decode($text, false, 512, JSON_THROW_ON_ERROR);
    }

    public function jsonSerialize(): never
    {
        throw new \LogicException('a RawJson is sent as it is only as a whole body, not inside one');
    }
}

/**
 * A reserved job: finish, fail or touch it with its token before $reservedUntil. $body is the
 * payload as a PHP value, $bodyJson its exact JSON text as stored (a text payload as a JSON
 * string), null for bytes that are not UTF-8 text.
 */
final class Job
{
    public function __construct(
        public readonly string $topic,
        public readonly string $id,
        public readonly int $token,
        public readonly int $attempt,
        public readonly int $maxAttempts,
        public readonly mixed $body,
        public readonly string $dueAt,
        public string $reservedUntil,
        public readonly string $ttr,
        /** The job's own headers (name => value); empty when it has none. */
        public readonly array $headers = [],
        public readonly ?string $bodyJson = null,
    ) {
    }

    public static function fromArray(array $job): self
    {
        return new self($job['topic'], $job['id'], $job['token'], $job['attempt'], $job['maxAttempts'],
            $job['body'] ?? null, $job['dueAt'], $job['reservedUntil'], $job['ttr'], $job['headers'] ?? [],
            $job['bodyJson'] ?? null);
    }
}

/** Talks to one delayqueue HTTP job API; every call is one HTTP request. */
final class DelayQueueClient
{
    private const ERRORS = [
        400 => BadRequestException::class,
        401 => UnauthorizedException::class,
        409 => StaleTokenException::class,
        429 => TooManyRequestsException::class,
        502 => UnavailableException::class,
        503 => UnavailableException::class,
        504 => UnavailableException::class,
    ];

    private string $baseUrl;

    public function __construct(string $baseUrl, private ?string $token = null, private float $timeout = 30.0)
    {
        $this->baseUrl = rtrim($baseUrl, '/');
    }

    /**
     * Schedules a job: after $delay, or at $dueAt (exactly one of them). $body is any JSON value,
     * or a RawJson to store that JSON text byte for byte; a string is stored as its text, as a
     * Java String payload is. Returns ['created' => bool, 'state' => ..., 'dueAt' => ...]: created
     * is false when a job with this topic and id exists and was kept (pass replace: true to
     * replace it). $headers are the job's own (a tenant, a correlation id): strings its listener
     * reads with @Header, shown by get and reserve.
     * $priority is 0 (lowest) to 9 (highest), 5 when null: among the READY jobs of its topic in its
     * bucket a higher one is handed out first, FIFO within one.
     */
    public function add(string $topic, string $id, mixed $body, int|string|null $delay = null,
                        int|string|\DateTimeInterface|null $dueAt = null, int|string|null $ttr = null,
                        ?int $maxAttempts = null, bool $replace = false, array $headers = [],
                        ?int $priority = null): array
    {
        $request = ['topic' => $topic, 'id' => $id, 'body' => $body];
        if ($delay !== null) {
            $request['delay'] = $delay;
        }
        if ($dueAt !== null) {
            $request['dueAt'] = $dueAt instanceof \DateTimeInterface ? $dueAt->format('Y-m-d\TH:i:s.vP') : $dueAt;
        }
        if ($ttr !== null) {
            $request['ttr'] = $ttr;
        }
        if ($maxAttempts !== null) {
            $request['maxAttempts'] = $maxAttempts;
        }
        if ($replace) {
            $request['onDuplicate'] = 'REPLACE';
        }
        if ($headers !== []) {
            // an object even for names like "0", which PHP would otherwise send as a JSON array
            $request['headers'] = (object) $headers;
        }
        if ($priority !== null) {
            $request['priority'] = $priority;
        }
        return $this->call('POST', '/jobs', $request);
    }

    /** Cancels a job in any state; false when there was none. */
    public function cancel(string $topic, string $id): bool
    {
        try {
            $this->call('DELETE', self::jobPath($topic, $id));
            return true;
        } catch (DelayQueueException $e) {
            if ($e->status === 404) {
                return false;
            }
            throw $e;
        }
    }

    /**
     * Makes a waiting job due now: true when it was DELAYED, false when it was READY already (it
     * keeps its place); null when there is no such job. A RESERVED or DEAD job is refused
     * (BadRequestException naming id).
     */
    public function runNow(string $topic, string $id): ?bool
    {
        $answer = $this->found('POST', self::jobPath($topic, $id) . '/run');
        return $answer === null ? null : $answer['rescheduled'];
    }

    /**
     * Reads a job (state, attempts, due time, last error, body); null when there is none.
     * 'bodyJson' is the exact JSON text of 'body', as Job's $bodyJson is.
     */
    public function get(string $topic, string $id): ?array
    {
        try {
            return $this->call('GET', self::jobPath($topic, $id));
        } catch (DelayQueueException $e) {
            if ($e->status === 404) {
                return null;
            }
            throw $e;
        }
    }

    /**
     * Takes up to $max READY jobs of a topic, waiting up to $wait for some (long polling).
     *
     * @return Job[] the jobs, possibly none when the wait ran out
     */
    public function reserve(string $topic, int $max = 1, int|string|null $wait = null,
                            int|string|null $ttr = null): array
    {
        $query = ['max' => $max];
        if ($wait !== null) {
            $query['wait'] = $wait;
        }
        if ($ttr !== null) {
            $query['ttr'] = $ttr;
        }
        $path = '/topics/' . rawurlencode($topic) . '/reserve?' . http_build_query($query);
        $answer = $this->call('POST', $path, null, $this->timeout + ($wait !== null ? self::seconds($wait) : 0));
        return array_map([Job::class, 'fromArray'], $answer['jobs']);
    }

    /** Finishes a reserved job (it is removed); StaleTokenException when it is not yours. */
    public function finish(Job $job): void
    {
        $this->call('POST', self::jobPath($job->topic, $job->id) . '/finish', ['token' => $job->token]);
    }

    /**
     * Fails a reserved job: delivered again after $retryIn, or DEAD at once with $dead.
     * Returns 'RETRYING', or 'DEAD' when its attempts are used up (or $dead).
     */
    public function fail(Job $job, int|string|null $retryIn = null, bool $dead = false, ?string $error = null): string
    {
        $request = ['token' => $job->token];
        if ($retryIn !== null) {
            $request['retryIn'] = $retryIn;
        }
        if ($dead) {
            $request['dead'] = true;
        }
        if ($error !== null) {
            $request['error'] = $error;
        }
        return $this->call('POST', self::jobPath($job->topic, $job->id) . '/fail', $request)['result'];
    }

    /** Extends a reservation to now + $ttr (the job's own TTR when null); returns the new deadline. */
    public function touch(Job $job, int|string|null $ttr = null): string
    {
        $request = ['token' => $job->token];
        if ($ttr !== null) {
            $request['ttr'] = $ttr;
        }
        $job->reservedUntil = $this->call('POST', self::jobPath($job->topic, $job->id) . '/touch', $request)['reservedUntil'];
        return $job->reservedUntil;
    }

    /**
     * Creates or replaces the recurring job $name: each tick of its schedule creates a job (an
     * occurrence) of $topic, with $body (a RawJson too) and $headers as add would.
     *
     * The schedule is $cron (six fields, from seconds, as Spring's CronExpression reads them, or a
     * macro such as '@daily') in $zone (default UTC), $every (a fixed rate, ticking at the
     * multiples of the period since the epoch) or $fixedDelay (the next occurrence is due this
     * long after the previous one left the queue): exactly one of them. $misfire says what ticks
     * fired later than $misfireThreshold do: 'FIRE_ONCE' (one occurrence for them all, the
     * default), 'SKIP' or 'FIRE_ALL' (one each, at most $maxCatchUp); $overlap 'SKIP' skips a
     * tick while the previous occurrence still exists ('ALLOW', the default, does not). Options
     * left null take the server's defaults: a put replaces the whole definition. Returns the
     * recurring job (see getRecurring) with 'result' => 'CREATED', 'UPDATED' or 'UNCHANGED'.
     */
    public function putRecurring(string $name, string $topic, ?string $cron = null, int|string|null $every = null,
                                 ?string $zone = null, mixed $body = null, array $headers = [],
                                 int|string|null $ttr = null, ?int $maxAttempts = null, ?string $misfire = null,
                                 int|string|null $misfireThreshold = null, ?int $maxCatchUp = null,
                                 ?string $overlap = null, int|string|null $fixedDelay = null): array
    {
        $request = ['topic' => $topic];
        if ($cron !== null) {
            $request['cron'] = $cron;
        }
        if ($every !== null) {
            $request['every'] = $every;
        }
        if ($fixedDelay !== null) {
            $request['fixedDelay'] = $fixedDelay;
        }
        if ($zone !== null) {
            $request['zone'] = $zone;
        }
        if ($body !== null) {
            $request['body'] = $body;
        }
        if ($headers !== []) {
            // an object even for names like "0", which PHP would otherwise send as a JSON array
            $request['headers'] = (object) $headers;
        }
        if ($ttr !== null) {
            $request['ttr'] = $ttr;
        }
        if ($maxAttempts !== null) {
            $request['maxAttempts'] = $maxAttempts;
        }
        if ($misfire !== null) {
            $request['misfire'] = $misfire;
        }
        if ($misfireThreshold !== null) {
            $request['misfireThreshold'] = $misfireThreshold;
        }
        if ($maxCatchUp !== null) {
            $request['maxCatchUp'] = $maxCatchUp;
        }
        if ($overlap !== null) {
            $request['overlap'] = $overlap;
        }
        return $this->call('PUT', self::recurringPath($name), $request);
    }

    /**
     * Reads a recurring job (schedule, options, paused, nextFireTime, fired, lastOccurrence,
     * headers, body and bodyJson, as get has them); null when there is none.
     */
    public function getRecurring(string $name): ?array
    {
        return $this->found('GET', self::recurringPath($name));
    }

    /**
     * Reads every recurring job, as getRecurring does.
     *
     * @return array[]
     */
    public function listRecurring(): array
    {
        return $this->call('GET', '/recurring')['recurring'];
    }

    /** Pauses a recurring job: its ticks create no occurrence until it is resumed; false when there is none. */
    public function pauseRecurring(string $name): bool
    {
        return $this->found('POST', self::recurringPath($name) . '/pause') !== null;
    }

    /** Resumes a paused recurring job; false when there is none. */
    public function resumeRecurring(string $name): bool
    {
        return $this->found('POST', self::recurringPath($name) . '/resume') !== null;
    }

    /**
     * Creates an occurrence now, paused or not, without changing the schedule; returns its id (read
     * it with get($topic, $id)), null when there is no such recurring job.
     */
    public function triggerRecurring(string $name): ?string
    {
        return $this->found('POST', self::recurringPath($name) . '/trigger')['occurrence'] ?? null;
    }

    /** Deletes a recurring job (the occurrences it created already stay and run); false when there was none. */
    public function deleteRecurring(string $name): bool
    {
        return $this->found('DELETE', self::recurringPath($name)) !== null;
    }

    private static function jobPath(string $topic, string $id): string
    {
        return '/jobs/' . rawurlencode($topic) . '/' . rawurlencode($id);
    }

    private static function recurringPath(string $name): string
    {
        return '/recurring/' . rawurlencode($name);
    }

    /** The answer to a request on one job or recurring job; null for a 404 (there is none). */
    private function found(string $method, string $path): ?array
    {
        try {
            return $this->call($method, $path);
        } catch (DelayQueueException $e) {
            if ($e->status === 404) {
                return null;
            }
            throw $e;
        }
    }

    /** How long a wait lasts, to give the HTTP request that much more time. */
    private static function seconds(int|string $duration): float
    {
        if (is_int($duration) || preg_match('/^\d+$/', $duration) === 1) {
            return ((int) $duration) / 1000;
        }
        if (preg_match('/^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/', $duration, $m) !== 1) {
            return 60.0; // the server refuses it, or bounds it by delayqueue.http.max-wait
        }
        return ((((float) ($m[1] ?? 0)) * 24 + (float) ($m[2] ?? 0)) * 60 + (float) ($m[3] ?? 0)) * 60
            + (float) ($m[4] ?? 0);
    }

    private function call(string $method, string $path, ?array $body = null, ?float $timeout = null): array
    {
        $headers = ['Accept: application/json'];
        if ($this->token !== null && $this->token !== '') {
            $headers[] = 'Authorization: Bearer ' . $this->token;
        }
        $timeout ??= $this->timeout;
        $options = ['method' => $method, 'ignore_errors' => true, 'timeout' => $timeout, 'protocol_version' => 1.1];
        if ($body !== null) {
            $headers[] = 'Content-Type: application/json';
            $options['content'] = self::encode($body);
        }
        $headers[] = 'Connection: close';
        $options['header'] = implode("\r\n", $headers);
        $url = $this->baseUrl . $path;
        $api = "the delayqueue API at {$this->baseUrl}";
        $request = "($method $path)";
        error_clear_last();
        $start = microtime(true);
        $stream = @fopen($url, 'r', false, stream_context_create(['http' => $options]));
        if ($stream === false) {
            // "fopen(url): Failed to open stream: Connection refused" and the like: the reason is last
            $error = error_get_last()['message'] ?? 'no answer';
            $reason = preg_replace('/^.*Failed to open stream: (?:php_network_getaddresses: )?/i', '', $error);
            if (str_contains($reason, 'timed out') || microtime(true) - $start >= $timeout) {
                throw new UnreachableException(0, "no answer from $api within $timeout s $request");
            }
            if (str_contains($reason, 'HTTP request failed')) {
                throw new UnreachableException(0, "$api closed the connection without an answer $request");
            }
            throw new UnreachableException(0, "could not reach $api $request: $reason");
        }
        try {
            $text = stream_get_contents($stream);
            $meta = stream_get_meta_data($stream);
        } finally {
            fclose($stream);
        }
        if ($meta['timed_out'] || $text === false) {
            throw new UnreachableException(0, "no answer from $api within $timeout s $request");
        }
        [$status, $reasonPhrase, $retryAfter] = self::statusLine($meta['wrapper_data'] ?? []);
        $answer = ($text === '') ? [] : json_decode($text, true);
        if ($status >= 200 && $status < 300) {
            if (!is_array($answer)) {
                throw new DelayQueueException($status, "$method $url answered " . self::excerpt($text)
                    . ", not JSON: is {$this->baseUrl} the API's base URL?");
            }
            return ($text === '') ? $answer : self::withBodyJson($answer, $text, strspn($text, " \t\n\r"));
        }
        $detail = is_array($answer) && is_string($answer['detail'] ?? null) ? $answer['detail']
            : (trim($text) !== '' ? "$status $reasonPhrase: " . self::excerpt($text) : $reasonPhrase);
        $field = is_array($answer) && is_string($answer['field'] ?? null) ? $answer['field'] : null;
        $class = self::ERRORS[$status] ?? DelayQueueException::class;
        throw new $class($status, $detail, $field, $retryAfter);
    }

    /**
     * The status, reason phrase and Retry-After seconds of an answer's header lines.
     *
     * @return array{int, string, ?int}
     */
    private static function statusLine(array $headers): array
    {
        $status = 0;
        $reasonPhrase = '';
        $retryAfter = null;
        foreach ($headers as $line) {
            if (preg_match('#^HTTP/\S+ (\d{3}) ?(.*)$#', $line, $m) === 1) {
                [$status, $reasonPhrase, $retryAfter] = [(int) $m[1], trim($m[2]), null];
            } elseif (preg_match('/^Retry-After:\s*(\d+)\s*$/i', $line, $m) === 1) {
                $retryAfter = (int) $m[1];
            }
        }
        return [$status, $reasonPhrase, $retryAfter];
    }

    /** A request as JSON, its body as it is when that is a RawJson. */
    private static function encode(array $request): string
    {
        $body = $request['body'] ?? null;
        $flags = JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION;
        if (!$body instanceof RawJson) {
            return json_encode($request, $flags);
        }
        unset($request['body']);
        return substr(json_encode($request, $flags), 0, -1) . ',"body":' . $body->text . '}';
    }

    /**
     * The answer with 'bodyJson', the exact text of 'body', next to the body of the object that
     * starts at $start in $text, and of the objects in its arrays (a reserve's jobs, the recurring
     * jobs).
     */
    private static function withBodyJson(array $answer, string $text, int $start): array
    {
        if ($text[$start] !== '{') {
            return $answer;
        }
        foreach (self::members($text, $start) as [$name, $valueStart, $valueEnd]) {
            if ($name === 'body') {
                $answer['bodyJson'] = substr($text, $valueStart, $valueEnd - $valueStart);
            } elseif ($text[$valueStart] === '[') {
                foreach (self::elements($text, $valueStart) as $index => $elementStart) {
                    if (is_array($answer[$name][$index])) {
                        $answer[$name][$index] = self::withBodyJson($answer[$name][$index], $text, $elementStart);
                    }
                }
            }
        }
        return $answer;
    }

    /** Where the JSON value that starts at $start ends; $text is valid JSON. */
    private static function valueEnd(string $text, int $start): int
    {
        $depth = 0;
        $i = $start;
        while (true) {
            $char = $text[$i];
            if ($char === '"') {
                preg_match('/\G"[^"\\\\]*+(?:\\\\.[^"\\\\]*+)*+"/s', $text, $string, 0, $i);
                $i += strlen($string[0]);
            } elseif ($char === '[' || $char === '{') {
                $depth++;
                $i++;
            } elseif ($char === ']' || $char === '}') {
                $depth--;
                $i++;
            } else {
                $i += strcspn($text, " \t\n\r,:[]{}\"", $i);
            }
            if ($depth === 0) {
                return $i;
            }
            $i += strspn($text, " \t\n\r,:", $i);
        }
    }

    /**
     * The name, value start and value end of each member of the JSON object at $start.
     *
     * @return \Generator<array{string, int, int}>
     */
    private static function members(string $text, int $start): \Generator
    {
        $i = $start + 1 + strspn($text, " \t\n\r", $start + 1);
        while ($text[$i] !== '}') {
            $nameEnd = self::valueEnd($text, $i);
            $valueStart = $nameEnd + strspn($text, " \t\n\r:", $nameEnd);
            $valueEnd = self::valueEnd($text, $valueStart);
            yield [json_decode(substr($text, $i, $nameEnd - $i)), $valueStart, $valueEnd];
            $i = $valueEnd + strspn($text, " \t\n\r,", $valueEnd);
        }
    }

    /**
     * The start of each element of the JSON array at $start.
     *
     * @return \Generator<int, int>
     */
    private static function elements(string $text, int $start): \Generator
    {
        $i = $start + 1 + strspn($text, " \t\n\r", $start + 1);
        while ($text[$i] !== ']') {
            yield $i;
            $end = self::valueEnd($text, $i);
            $i = $end + strspn($text, " \t\n\r,", $end);
        }
    }

    private static function excerpt(string $text): string
    {
        $text = preg_replace('/\s+/', ' ', trim($text));
        return "'" . (strlen($text) <= 200 ? $text : substr($text, 0, 200) . '...') . "'";
    }
}
