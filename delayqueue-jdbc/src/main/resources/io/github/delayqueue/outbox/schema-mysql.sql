-- The delayed job outbox (delayqueue.outbox.enabled): one row per write held back in a transaction.
CREATE TABLE IF NOT EXISTS delayqueue_outbox (
	id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
	transaction_key CHAR(36) NOT NULL,
	created_millis BIGINT NOT NULL,
	claimed_until BIGINT,
	action VARCHAR(16) NOT NULL,
	topic VARCHAR(100) NOT NULL,
	job_id VARCHAR(200) NOT NULL,
	options MEDIUMTEXT NOT NULL,
	payload LONGBLOB,
	INDEX delayqueue_outbox_transaction (transaction_key),
	INDEX delayqueue_outbox_created (created_millis)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
