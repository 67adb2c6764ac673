<?php

/**
 * Tests of DelayQueueClient.php against a running application with the HTTP job API.
 *
 *     DELAYQUEUE_URL=http://localhost:8080/delayqueue DELAYQUEUE_TOKEN=sample-token php test.php
 *
 * Exits 0 when every test passed. The delayqueue build runs it against the sample application
 * (SampleClientsTests). The tests of failures need no application: php test.php failures
 * With DELAYQUEUE_ACTUATOR_URL (such as http://demo:demo-password@localhost:8080/actuator) the
 * dead jobs are also read from the application's delayqueue actuator endpoint.
 */

declare(strict_types=1);

require __DIR__ . '/DelayQueueClient.php';

use DelayQueue\BadRequestException;
use DelayQueue\DelayQueueClient;
use DelayQueue\DelayQueueException;
use DelayQueue\RawJson;
use DelayQueue\StaleTokenException;
use DelayQueue\TooManyRequestsException;
use DelayQueue\UnauthorizedException;
use DelayQueue\UnavailableException;
use DelayQueue\UnreachableException;

$url = getenv('DELAYQUEUE_URL') ?: 'http://localhost:8080/delayqueue';
$token = getenv('DELAYQUEUE_TOKEN') ?: 'sample-token';
$client = new DelayQueueClient($url, $token);
$actuatorUrl = getenv('DELAYQUEUE_ACTUATOR_URL') ?: null;

// JSON texts that json_decode and json_encode would change: digits, 1e400, -0, 1.0, key order,
// spacing, escapes; the last one a JSON string
$exactPayloads = ['0.1', '1e400', '-0', '1.0', '12345678901234567890',
    str_repeat('{"b":', 40) . '{"z": [0.10000000000000000001, 1E-7, {}], "a": null}' . str_repeat('}', 40),
    '{"text": "h\\u00e9llo wörld ☃ 日本 😀", "emoji": "\\ud83d\\ude00"}',
    "{ \"spaced\" : [ 1 ,\n\t2 ] }", '"a JSON string: héllo \\"quoted\\""'];

function check(bool $condition, string $what): void
{
    if (!$condition) {
        throw new \RuntimeException("expected: $what");
    }
}

function refused(callable $call, string $class, ?string $field = null): \Throwable
{
    try {
        $call();
    } catch (\Throwable $e) {
        check($e instanceof $class, "$class, was " . get_class($e) . ': ' . $e->getMessage());
        if ($field !== null) {
            check($e->field === $field, "field $field, was " . var_export($e->field, true));
        }
        return $e;
    }
    throw new \RuntimeException("expected $class, nothing was thrown");
}

/** A port nothing listens on. */
function closedPort(): int
{
    $socket = stream_socket_server('tcp://127.0.0.1:0');
    $port = (int) substr(strrchr(stream_socket_get_name($socket, false), ':'), 1);
    fclose($socket);
    return $port;
}

/**
 * PHP's built-in web server answering GET /jobs/t/<status> with that status, as the API or a
 * proxy in front of it would; stopped when the tests end.
 */
function answers(): string
{
    static $url = null;
    if ($url !== null) {
        return $url;
    }
    $router = tempnam(sys_get_temp_dir(), 'delayqueue-answers') . '.php';
    file_put_contents($router, <<<'PHP'
        <?php
        $status = (int) basename(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH));
        http_response_code($status);
        if ($status === 429 || $status === 503) {
            header('Retry-After: ' . ($status === 429 ? 1 : 3));
            header('Content-Type: application/problem+json');
            echo json_encode(['status' => $status, 'detail' => ($status === 429)
                ? 'reserve requests wait on 100 topics already' : "the queue's Redis is unreachable; retry later"]);
        } elseif ($status === 502 || $status === 200) {
            header('Content-Type: text/html');
            echo ($status === 502) ? '<html><body><h1>502 Bad Gateway</h1></body></html>' : '<html><body>Welcome</body></html>';
        }
        PHP);
    $port = closedPort();
    $server = proc_open([PHP_BINARY, '-S', "127.0.0.1:$port", $router], [['pipe', 'r'], ['file', '/dev/null', 'w'],
        ['file', '/dev/null', 'w']], $pipes);
    register_shutdown_function(function () use ($server, $router): void {
        proc_terminate($server);
        proc_close($server);
        unlink($router);
    });
    for ($i = 0; $i < 100 && @fsockopen('127.0.0.1', $port) === false; $i++) {
        usleep(50_000);
    }
    return $url = "http://127.0.0.1:$port/delayqueue";
}

$failures = [
    'a server that is down is unreachable, naming the URL' => function (): void {
        $url = 'http://127.0.0.1:' . closedPort() . '/delayqueue';
        $e = refused(fn () => (new DelayQueueClient($url))->add('t', 'x', 1, delay: 0), UnreachableException::class);
        check($e instanceof UnavailableException && $e instanceof DelayQueueException, 'an UnavailableException');
        check($e->status === 0, 'status 0');
        check(str_contains($e->getMessage(), "could not reach the delayqueue API at $url (POST /jobs): Connection refused"),
            'the URL and the reason, was: ' . $e->getMessage());
    },
    'an unknown host is unreachable' => function (): void {
        $e = refused(fn () => (new DelayQueueClient('http://no-such-host.invalid/delayqueue'))->get('t', 'x'),
            UnreachableException::class);
        check(str_contains($e->getMessage(), 'http://no-such-host.invalid/delayqueue (GET /jobs/t/x)'),
            'the URL, was: ' . $e->getMessage());
    },
    'no answer within the timeout is unreachable' => function (): void {
        $silent = stream_socket_server('tcp://127.0.0.1:0'); // the connection is made, no answer ever comes
        $url = 'http://' . stream_socket_get_name($silent, false) . '/delayqueue';
        $e = refused(fn () => (new DelayQueueClient($url, null, 0.5))->get('t', 'x'), UnreachableException::class);
        fclose($silent);
        check(str_contains($e->getMessage(), "no answer from the delayqueue API at $url within 0.5 s"),
            'the timeout, was: ' . $e->getMessage());
    },
    '503 is unavailable with Retry-After, 429 too many requests' => function (): void {
        $client = new DelayQueueClient(answers());
        $e = refused(fn () => $client->get('t', '503'), UnavailableException::class);
        check(!($e instanceof UnreachableException) && $e->status === 503 && $e->retryAfter === 3, '503, retry after 3 s');
        check($e->getMessage() === "HTTP 503: the queue's Redis is unreachable; retry later", 'the detail');
        check(refused(fn () => $client->get('t', '429'), TooManyRequestsException::class)->retryAfter === 1,
            '429, retry after 1 s');
    },
    "a proxy's error page is unavailable, other answers a DelayQueueException" => function (): void {
        $client = new DelayQueueClient(answers());
        $e = refused(fn () => $client->get('t', '502'), UnavailableException::class);
        check($e->status === 502 && $e->retryAfter === null && str_contains($e->detail, '502 Bad Gateway'),
            'an excerpt of the page, was: ' . $e->detail);
        check(refused(fn () => $client->get('t', '500'), DelayQueueException::class)->detail === 'Internal Server Error',
            'the reason phrase');
        $e = refused(fn () => $client->get('t', '200'), DelayQueueException::class);
        check(str_contains($e->getMessage(), 'not JSON: is ' . answers() . " the API's base URL?"), 'the base URL, was: '
            . $e->getMessage());
    },
];

$tests = [
    'add, reserve and finish round trip' => function (DelayQueueClient $client, string $topic): void {
        check($client->add($topic, 'j-1', ['user' => 42, 'tags' => ['a', 'b']], delay: 0,
            headers: ['tenant' => 'acme'])['created'] === true, 'created');
        $client->add($topic, 'j-2', 'plain text', delay: 'PT0S');
        $jobs = $client->reserve($topic, max: 10, wait: 'PT5S');
        check(count($jobs) === 2, 'two jobs');
        $byId = [];
        foreach ($jobs as $job) {
            $byId[$job->id] = $job;
        }
        check($byId['j-1']->body === ['user' => 42, 'tags' => ['a', 'b']], 'object body');
        check($byId['j-2']->body === 'plain text', 'text body');
        check($byId['j-1']->headers === ['tenant' => 'acme'], 'headers');
        check($byId['j-2']->headers === [], 'no headers');
        check($byId['j-1']->attempt === 1, 'attempt 1');
        foreach ($jobs as $job) {
            $client->finish($job);
        }
        check($client->get($topic, 'j-1') === null, 'finished job gone');
    },
    'duplicate kept unless replaced' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 'd', 1, delay: 3_600_000);
        $kept = $client->add($topic, 'd', 2, delay: 0);
        check($kept['created'] === false && $kept['state'] === 'DELAYED', 'kept');
        check($client->add($topic, 'd', 2, dueAt: new \DateTimeImmutable(), replace: true)['created'] === true, 'replaced');
        check($client->get($topic, 'd')['body'] === 2, 'new body');
    },
    'long poll answers when the job becomes due' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 'soon', ['n' => 1], delay: 'PT1S');
        $start = microtime(true);
        $jobs = $client->reserve($topic, wait: 'PT10S');
        $elapsed = microtime(true) - $start;
        check(count($jobs) === 1 && $jobs[0]->id === 'soon', 'the job');
        check($elapsed > 0.5 && $elapsed < 5.0, "answered after about a second, was $elapsed s");
        $client->finish($jobs[0]);
    },
    'a stale token is refused' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 's', 1, delay: 0);
        $first = $client->reserve($topic, ttr: 300)[0];
        $second = $client->reserve($topic, wait: 'PT5S', ttr: 'PT60S')[0];
        check($second->attempt === 2, 'redelivered');
        refused(fn () => $client->finish($first), StaleTokenException::class, 'token');
        $client->finish($second);
    },
    'fail retries, then the job is dead' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 'f', ['x' => 1], delay: 0, ttr: 'PT30S', maxAttempts: 2);
        $job = $client->reserve($topic, wait: 'PT5S')[0];
        check($client->touch($job, 'PT10M') === $job->reservedUntil, 'touched');
        check($client->fail($job, retryIn: 0, error: 'partner down') === 'RETRYING', 'retrying');
        $job = $client->reserve($topic, wait: 'PT5S')[0];
        check($client->fail($job, retryIn: 1000, error: 'still down') === 'DEAD', 'dead');
        $dead = $client->get($topic, 'f');
        check($dead['state'] === 'DEAD' && $dead['lastError'] === 'still down', 'dead with its error');
    },
    'raw JSON comes back byte for byte' => function (DelayQueueClient $client, string $topic) use ($actuatorUrl, $exactPayloads): void {
        $sent = [];
        foreach ($exactPayloads as $i => $payload) {
            $sent["x$i"] = $payload;
            $client->add($topic, "x$i", new RawJson($payload), delay: 0);
            check($client->get($topic, "x$i")['bodyJson'] === $payload, "get answers $payload");
        }
        $jobs = [];
        while (count($jobs) < count($sent)) {
            $jobs = array_merge($jobs, $client->reserve($topic, max: count($sent), wait: 'PT5S'));
        }
        $reserved = array_column(array_map(fn ($job) => [$job->id, $job->bodyJson], $jobs), 1, 0);
        ksort($reserved);
        check($reserved === $sent, 'reserve answers each payload, was ' . var_export($reserved, true));
        foreach ($jobs as $job) {
            check($client->fail($job, dead: true) === 'DEAD', 'dead');
        }
        foreach ($sent as $id => $payload) {
            check($client->get($topic, $id)['bodyJson'] === $payload, "the dead job's get answers $payload");
        }
        if ($actuatorUrl !== null) {
            // the page shows each payload as text: a JSON string's text, any other JSON as it is
            $page = json_decode(file_get_contents("$actuatorUrl/delayqueue/" . rawurlencode($topic)), true);
            $shown = array_column($page['deadJobs']['jobs'], 'payload', 'id');
            ksort($shown);
            check($shown === array_map(fn ($payload) => str_starts_with($payload, '"') ? json_decode($payload)
                : $payload, $sent), 'the dead-job page shows each payload, was ' . var_export($shown, true));
        }
    },
    'a higher priority is reserved first' => function (DelayQueueClient $client, string $topic): void {
        // priorities order the jobs of one bucket: three ids that share one whether the server
        // has 1 bucket (a new namespace on one Redis server) or 2, 4, 8 or 16 (the server puts a
        // job in crc32("<topic>:<id>") mod buckets)
        $ids = [];
        for ($i = 0; count($ids) < 3; $i++) {
            if (crc32("$topic:p$i") % 16 === crc32("$topic:p0") % 16) {
                $ids[] = "p$i";
            }
        }
        [$low, $plain, $urgent] = $ids;
        $client->add($topic, $low, 1, delay: 0, priority: 1);
        $client->add($topic, $plain, 2, delay: 0);
        $client->add($topic, $urgent, 3, delay: 0, priority: 9);
        check($client->get($topic, $urgent)['priority'] === 9, 'the priority is shown');
        $taken = [];
        while (count($taken) < 3) {
            $taken = array_merge($taken, $client->reserve($topic, wait: 'PT5S', max: 3));
        }
        check(array_map(fn ($job) => $job->id, $taken) === [$urgent, $plain, $low], 'highest first');
        foreach ($taken as $job) {
            $client->finish($job);
        }
        refused(fn () => $client->add($topic, 'bad', 1, delay: 0, priority: 10), BadRequestException::class, 'priority');
    },
    'cancel prevents delivery' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 'c', 1, delay: 300);
        check($client->cancel($topic, 'c') === true, 'cancelled');
        check($client->cancel($topic, 'c') === false, 'nothing to cancel');
        check($client->reserve($topic, wait: 'PT1S') === [], 'not delivered');
    },
    'run now makes a delayed job due' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 'r', 1, delay: 'PT1H');
        check($client->runNow($topic, 'r') === true, 'made due');
        $jobs = $client->reserve($topic, wait: 'PT5S');
        check(count($jobs) === 1 && $jobs[0]->id === 'r', 'delivered');
        refused(fn () => $client->runNow($topic, 'r'), BadRequestException::class, 'id');
        check($client->get($topic, 'r')['state'] === 'RESERVED', 'still reserved');
        $client->finish($jobs[0]);
        check($client->runNow($topic, 'r') === null, 'no such job');
        $client->add($topic, 'due', 1, delay: 0);
        check($client->get($topic, 'due')['state'] === 'READY', 'ready');
        check($client->runNow($topic, 'due') === false, 'due already');
        check($client->cancel($topic, 'due') === true, 'cancelled');
    },
    'bad input names the field, a wrong token is unauthorized' => function (DelayQueueClient $client, string $topic) use ($url): void {
        refused(fn () => $client->add('bad topic!', 'x', 1, delay: 0), BadRequestException::class, 'topic');
        refused(fn () => $client->add($topic, 'x', 1, delay: 'soon'), BadRequestException::class, 'delay');
        refused(fn () => $client->reserve($topic, max: 0), BadRequestException::class, 'max');
        refused(fn () => (new DelayQueueClient($url, 'not-the-token'))->add($topic, 'x', 1, delay: 0),
            UnauthorizedException::class);
        check($client->get($topic, 'x') === null, 'nothing changed');
    },
    'recurring jobs are put, read, paused, triggered and deleted' => function (DelayQueueClient $client, string $topic): void {
        $name = 'php-rec-' . bin2hex(random_bytes(6));
        $occurrence = null;
        try {
            $nightly = fn () => $client->putRecurring($name, $topic, cron: '0 0 3 1 1 *', zone: 'Europe/Berlin',
                body: ['report' => 'unpaid'], headers: ['tenant' => 'acme'], maxAttempts: 2, misfire: 'SKIP',
                overlap: 'SKIP');
            $created = $nightly();
            check($created['result'] === 'CREATED', 'created, was ' . $created['result']);
            check($created['name'] === $name && $created['topic'] === $topic, 'name and topic');
            check($created['cron'] === '0 0 3 1 1 *' && $created['zone'] === 'Europe/Berlin', 'cron and zone');
            check($created['body'] === ['report' => 'unpaid'], 'body');
            check($created['headers'] === ['tenant' => 'acme'], 'headers');
            check($created['misfire'] === 'SKIP' && $created['paused'] === false, 'misfire SKIP, not paused');
            check(($created['nextFireTime'] ?? '') !== '', 'a next fire time');
            check($nightly()['result'] === 'UNCHANGED', 'unchanged');
            $updated = $client->putRecurring($name, $topic, every: 'PT6H');
            check($updated['result'] === 'UPDATED', 'updated, was ' . $updated['result']);
            check($updated['every'] === 'PT6H' && !isset($updated['cron']), 'every instead of cron');

            $read = $client->getRecurring($name);
            check($read['every'] === 'PT6H' && $read['version'] === $updated['version'], 'read back');
            check(!isset($read['result']), 'no result in a read');
            check(in_array($name, array_column($client->listRecurring(), 'name'), true), 'listed');

            check($client->pauseRecurring($name) === true, 'paused');
            check($client->getRecurring($name)['paused'] === true, 'reads as paused');
            $occurrence = $client->triggerRecurring($name);
            check(is_string($occurrence) && str_starts_with($occurrence, "$name@"), "an occurrence of $name, was "
                . var_export($occurrence, true));
            check(($client->get($topic, $occurrence)['state'] ?? null) === 'READY', 'the occurrence is READY');
            check($client->resumeRecurring($name) === true, 'resumed');
            check($client->getRecurring($name)['paused'] === false, 'reads as not paused');

            check($client->deleteRecurring($name) === true, 'deleted');
            check($client->getRecurring($name) === null, 'gone');
            check($client->deleteRecurring($name) === false, 'nothing to delete');
            check($client->pauseRecurring($name) === false, 'nothing to pause');
            check($client->triggerRecurring($name) === null, 'nothing to trigger');
        } finally {
            $client->deleteRecurring($name);
            if ($occurrence !== null) {
                $client->cancel($topic, $occurrence);
            }
        }
    },
    'a bad cron names the field' => function (DelayQueueClient $client, string $topic): void {
        $name = 'php-rec-' . bin2hex(random_bytes(6));
        try {
            refused(fn () => $client->putRecurring($name, $topic, cron: '0 61 * * * *'), BadRequestException::class,
                'cron');
            check($client->getRecurring($name) === null, 'nothing created');
        } finally {
            $client->deleteRecurring($name);
        }
    },
];

$failed = 0;
$run = ($argv[1] ?? '') === 'failures' ? $failures : $failures + $tests;
foreach ($run as $name => $test) {
    $topic = 'php-' . bin2hex(random_bytes(6));
    try {
        $test($client, $topic);
        echo "ok   $name\n";
    } catch (\Throwable $e) {
        $failed++;
        echo "FAIL $name: " . $e->getMessage() . "\n";
    }
}
echo count($run) - $failed . ' passed, ' . $failed . " failed\n";
exit($failed === 0 ? 0 : 1);
