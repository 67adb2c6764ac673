package io.github.delayqueue.redis;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KeySpaceTests {

	@Test
	void bucketIsCrc32OfTopicColonIdModuloBuckets() {
		KeySpace keys = new KeySpace("delayqueue", 16);
		// the same value as zlib, PHP crc32() and Python zlib.crc32(b"order-close:42")
		assertThat(crc32Reference()).isEqualTo(0x59d4b5d2L);
		assertThat(keys.bucketOf("order-close", "42")).isEqualTo((int) (0x59d4b5d2L % 16));
		assertThat(new KeySpace("delayqueue", 1).bucketOf("any", "thing")).isZero();
	}

	@Test
	void everyKeyOfABucketSharesItsHashTag() {
		KeySpace keys = new KeySpace("shop", 16);
		assertThat(new String(keys.jobs(3))).isEqualTo("{shop:3}:jobs");
		assertThat(new String(keys.instances())).isEqualTo("{shop}:instances");
		assertThat(keys.channel()).isEqualTo("shop:events");
	}

	@Test
	void namespaceAndBucketsAreCheckedByTheBuilder() {
		RedisDelayQueueBuilder builder = RedisDelayQueue.builder(new LettuceConnectionFactory());
		assertThatIllegalArgumentException().isThrownBy(() -> builder.namespace("a}b")).withMessageContaining("namespace");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.buckets(0)).withMessageContaining("buckets");
	}

	private static long crc32Reference() {
		// bitwise IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320), written out independently
		long crc = 0xFFFFFFFFL;
		for (byte b : "order-close:42".getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
			crc ^= (b & 0xFF);
			for (int k = 0; k < 8; k++) {
				crc = ((crc & 1) != 0) ? (crc >>> 1) ^ 0xEDB88320L : crc >>> 1;
			}
		}
		return crc ^ 0xFFFFFFFFL;
	}

}
