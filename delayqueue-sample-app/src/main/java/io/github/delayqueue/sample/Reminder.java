package io.github.delayqueue.sample;

/**
 * The payload of a reminder job.
 *
 * @param id the reminder's id
 * @param text what to say
 */
record Reminder(String id, String text) {

}
