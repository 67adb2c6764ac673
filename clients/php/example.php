<?php

/**
 * A worker in PHP for jobs of a Java service, and a producer of jobs for it.
 *
 * Run the sample application (see the README), then: php clients/php/example.php
 *
 * It schedules a reminder due in 2 seconds, waits for it with a long poll, handles and
 * finishes it, and shows a failed job being retried.
 */

declare(strict_types=1);

require __DIR__ . '/DelayQueueClient.php';

use DelayQueue\DelayQueueClient;
use DelayQueue\UnreachableException;

$client = new DelayQueueClient(getenv('DELAYQUEUE_URL') ?: 'http://localhost:8080/delayqueue',
    getenv('DELAYQUEUE_TOKEN') ?: 'sample-token');
$topic = 'php-reminders';
$id = 'reminder-' . time();

try {
    $added = $client->add($topic, $id, ['user' => 42, 'text' => 'Your trial ends tomorrow'], delay: 'PT2S',
        maxAttempts: 3);
    echo 'add: ', json_encode($added), "\n";

    // long poll: the request waits on the server and returns as soon as the job is due
    foreach ($client->reserve($topic, max: 10, wait: 'PT10S') as $job) {
        echo "reserved: {$job->id} attempt {$job->attempt}/{$job->maxAttempts} body=", json_encode($job->body), "\n";
        // a first attempt that fails: the job comes back after the back-off, attempt counted
        echo 'fail: ', $client->fail($job, retryIn: 'PT1S', error: 'mail server busy'), "\n";
    }

    foreach ($client->reserve($topic, max: 10, wait: 'PT10S') as $job) {
        echo "reserved again: {$job->id} attempt {$job->attempt}\n";
        $client->finish($job);
        echo 'finished; the job is gone: ', json_encode($client->get($topic, $job->id) === null), "\n";
    }
} catch (UnreachableException $e) {
    fwrite(STDERR, $e->getMessage() . "\nIs the sample application running? See the README.\n");
    exit(1);
}
