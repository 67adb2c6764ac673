<?php

/**
 * Tests of DelayQueueClient.php against a running application with the HTTP job API.
 *
 *     DELAYQUEUE_URL=http://localhost:8080/delayqueue DELAYQUEUE_TOKEN=sample-token php test.php
 *
 * Exits 0 when every test passed. The delayqueue build runs it against the sample application
 * (SampleClientsTests).
 */

declare(strict_types=1);

require __DIR__ . '/DelayQueueClient.php';

use DelayQueue\BadRequestException;
use DelayQueue\DelayQueueClient;
use DelayQueue\StaleTokenException;
use DelayQueue\UnauthorizedException;

$url = getenv('DELAYQUEUE_URL') ?: 'http://localhost:8080/delayqueue';
$token = getenv('DELAYQUEUE_TOKEN') ?: 'sample-token';
$client = new DelayQueueClient($url, $token);

function check(bool $condition, string $what): void
{
    if (!$condition) {
        throw new \RuntimeException("expected: $what");
    }
}

function refused(callable $call, string $class, ?string $field = null): void
{
    try {
        $call();
    } catch (\Throwable $e) {
        check($e instanceof $class, "$class, was " . get_class($e) . ': ' . $e->getMessage());
        if ($field !== null) {
            check($e->field === $field, "field $field, was " . var_export($e->field, true));
        }
        return;
    }
    throw new \RuntimeException("expected $class, nothing was thrown");
}

$tests = [
    'add, reserve and finish round trip' => function (DelayQueueClient $client, string $topic): void {
        check($client->add($topic, 'j-1', ['user' => 42, 'tags' => ['a', 'b']], delay: 0)['created'] === true, 'created');
        $client->add($topic, 'j-2', 'plain text', delay: 'PT0S');
        $jobs = $client->reserve($topic, max: 10, wait: 'PT5S');
        check(count($jobs) === 2, 'two jobs');
        $byId = [];
        foreach ($jobs as $job) {
            $byId[$job->id] = $job;
        }
        check($byId['j-1']->body === ['user' => 42, 'tags' => ['a', 'b']], 'object body');
        check($byId['j-2']->body === 'plain text', 'text body');
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
    'cancel prevents delivery' => function (DelayQueueClient $client, string $topic): void {
        $client->add($topic, 'c', 1, delay: 300);
        check($client->cancel($topic, 'c') === true, 'cancelled');
        check($client->cancel($topic, 'c') === false, 'nothing to cancel');
        check($client->reserve($topic, wait: 'PT1S') === [], 'not delivered');
    },
    'bad input names the field, a wrong token is unauthorized' => function (DelayQueueClient $client, string $topic) use ($url): void {
        refused(fn () => $client->add('bad topic!', 'x', 1, delay: 0), BadRequestException::class, 'topic');
        refused(fn () => $client->add($topic, 'x', 1, delay: 'soon'), BadRequestException::class, 'delay');
        refused(fn () => $client->reserve($topic, max: 0), BadRequestException::class, 'max');
        refused(fn () => (new DelayQueueClient($url, 'not-the-token'))->add($topic, 'x', 1, delay: 0),
            UnauthorizedException::class);
        check($client->get($topic, 'x') === null, 'nothing changed');
    },
];

$failed = 0;
foreach ($tests as $name => $test) {
    $topic = 'php-' . bin2hex(random_bytes(6));
    try {
        $test($client, $topic);
        echo "ok   $name\n";
    } catch (\Throwable $e) {
        $failed++;
        echo "FAIL $name: " . $e->getMessage() . "\n";
    }
}
echo count($tests) - $failed . ' passed, ' . $failed . " failed\n";
exit($failed === 0 ? 0 : 1);
