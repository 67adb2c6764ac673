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
		assertThat(StoredPayload.size(Map.of(), payload)).isEqualTo(payload.length);
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
		assertThat(stored).hasSize((int) StoredPayload.size(headers, payload));
		assertThat(new String(stored, StandardCharsets.UTF_8))
			.startsWith("\0tenant=acme\ntrace.id=a=b c ü €\nempty=\n\0payload with");
		StoredPayload.Read read = StoredPayload.decode(stored);
		assertThat(read.headers()).containsExactlyEntriesOf(headers);
		assertThat(read.payload()).isEqualTo(payload);
	}

	@Test
	void aPayloadThatStartsWithNulIsStoredWithAnEmptyHeaderSection() {
		byte[] payload = { 0, 1, 2, 0, 3 };
		byte[] stored = StoredPayload.encode(Map.of(), payload);
		assertThat(stored).containsExactly(0, 0, 0, 1, 2, 0, 3);
		assertThat(StoredPayload.size(Map.of(), payload)).isEqualTo(stored.length);
		StoredPayload.Read read = StoredPayload.decode(stored);
		assertThat(read.headers()).isEmpty();
		assertThat(read.payload()).containsExactly(payload);
	}

	@Test
	void bytesThatStartWithNulWithoutAWellFormedHeaderSectionAreThePayload() {
		// as an earlier version stored a payload that starts with NUL
		for (String text : new String[] { "\0", "\0no end", "\0no-equals\n\0x", "\0=empty name\n\0x",
				"\0a=b\nleft over\0x", "\0a=b\0x" }) {
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
