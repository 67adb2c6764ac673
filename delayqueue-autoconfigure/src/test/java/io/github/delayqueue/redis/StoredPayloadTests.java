package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.JobConstraints;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a record stores after its header line: the payload alone when a job has no headers,
 * the headers before it otherwise.
 */
class StoredPayloadTests {

	@Test
	void aJobWithoutHeadersStoresItsPayloadItselfAndReadsItBackWithoutACopy() {
		byte[] payload = "{\"orderId\":42}".getBytes(StandardCharsets.UTF_8);
		assertThat(StoredPayload.encode(Map.of(), payload)).isSameAs(payload);
		assertThat(StoredPayload.encode(Map.of(), payload).length).isEqualTo(payload.length);
		StoredPayload.Read read = StoredPayload.decode(payload);
		assertThat(read.payload()).isSameAs(payload);
		assertThat(read.headers()).isEmpty();
		assertThat(StoredPayload.encode(Map.of(), new byte[0])).isEmpty();
		assertThat(StoredPayload.decode(new byte[0]).payload()).isEmpty();
		assertThat(StoredPayload.decode(null).payload()).isNull();
	}

	@Test
	void headersAreStoredBeforeThePayloadAndReadBackInOrder() {
		Map<String, String> headers = new LinkedHashMap<>();
		headers.put("tenant", "acme");
		headers.put("trace.id", "a=b c ü €");
		headers.put("empty", "");
		byte[] payload = "payload with = and \n and \0 inside".getBytes(StandardCharsets.UTF_8);
		byte[] stored = StoredPayload.encode(JobConstraints.headers(headers), payload);
		assertThat(stored).hasSize(StoredPayload.encode(headers, payload).length);
		assertThat(new String(stored, StandardCharsets.UTF_8))
			.startsWith("\0dqhtenant=acme\ntrace.id=a=b c ü €\nempty=\n\0payload with");
		StoredPayload.Read read = StoredPayload.decode(stored);
		assertThat(read.headers()).containsExactlyEntriesOf(headers);
		assertThat(read.payload()).isEqualTo(payload);
	}

	@Test
	void payloadsThatStartWithNulAreStoredAsTheyAreUnlessTheyStartLikeAHeaderSection() {
		// such as a schema-registry payload: a zero magic byte, then a big-endian schema id
		byte[] binary = { 0, 0, 0, 0, 7, 1, 2 };
		assertThat(StoredPayload.encode(Map.of(), binary)).isSameAs(binary);
		assertThat(StoredPayload.decode(binary).payload()).isSameAs(binary);
		byte[] lookalike = "\0dqhtenant=x\n\0rest".getBytes(StandardCharsets.UTF_8);
		byte[] stored = StoredPayload.encode(Map.of(), lookalike);
		assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("\0dqh\0\0dqhtenant=x\n\0rest");
		assertThat(StoredPayload.encode(Map.of(), lookalike).length).isEqualTo(stored.length);
		StoredPayload.Read read = StoredPayload.decode(stored);
		assertThat(read.headers()).isEmpty();
		assertThat(read.payload()).containsExactly(lookalike);
	}

	@Test
	void bytesThatStartLikeAHeaderSectionButAreNoneAreThePayload() {
		// as an earlier version may have stored a payload
		for (String text : new String[] { "\0", "\0dq", "\0dqh", "\0dqhno end", "\0dqhno-equals\n\0x",
				"\0dqh=empty name\n\0x", "\0dqha=b\nleft over\0x", "\0dqha=b\0x", "\0\0x" }) {
			byte[] stored = text.getBytes(StandardCharsets.UTF_8);
			StoredPayload.Read read = StoredPayload.decode(stored);
			assertThat(read.headers()).as(text).isEmpty();
			assertThat(read.payload()).as(text).isSameAs(stored);
		}
	}

	@Test
	void headerRulesNameTheHeaderAndTheRule() {
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.headers(Map.of("bad name", "x")))
			.withMessageContaining("header name must be 1 to 64 letters, digits");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.headers(Map.of("id", "x")))
			.withMessageContaining("header name 'id' is reserved");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobConstraints.headers(Map.of("delayqueue_attempt", "x")))
			.withMessageContaining("is reserved");
		assertThat(JobConstraints.headers(Map.of("delayqueue_dltError", "x"))).containsKey("delayqueue_dltError");
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.headers(Map.of("tenant", "a\nb")))
			.withMessageContaining("header 'tenant' must not contain control characters");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> JobConstraints.headers(Map.of("tenant", "x".repeat(1025))))
			.withMessageContaining("header 'tenant' must be at most 1024 characters");
		Map<String, String> many = new LinkedHashMap<>();
		for (int i = 0; i < 33; i++) {
			many.put("h" + i, "v");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.headers(many))
			.withMessageContaining("headers must be at most 32, were 33");
		Map<String, String> nullValue = new LinkedHashMap<>();
		nullValue.put("tenant", null);
		assertThatIllegalArgumentException().isThrownBy(() -> JobConstraints.headers(nullValue))
			.withMessageContaining("header 'tenant' must not be null");
	}

}
