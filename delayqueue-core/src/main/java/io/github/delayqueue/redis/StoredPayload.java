package io.github.delayqueue.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.JobConstraints;
import org.jspecify.annotations.Nullable;

import org.springframework.lang.Contract;

/**
 * What a job record holds after its header line: the payload as given when the job has no
 * headers (and the payload does not start with {@link #MAGIC}), else {@code MAGIC}, one
 * {@code name=value} line per header, a NUL byte, then the payload.
 */
final class StoredPayload {

	/** What a stored payload with a header section starts with. */
	private static final byte[] MAGIC = { 0, 'd', 'q', 'h' };

	private static final byte END = 0;

	private StoredPayload() {
	}

	/** A stored payload read back: unmodifiable headers and the payload. */
	record Read(Map<String, String> headers, byte @Nullable [] payload) {
	}

	/** What to store for checked headers and a payload. */
	static byte[] encode(Map<String, String> headers, byte[] payload) {
		if (headers.isEmpty() && !startsWithMagic(payload)) {
			return payload;
		}
		ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + MAGIC.length + 1 + 32 * headers.size());
		out.writeBytes(MAGIC);
		headers.forEach((name, value) -> {
			out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
			out.write('=');
			out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
			out.write('\n');
		});
		out.write(END);
		out.writeBytes(payload);
		return out.toByteArray();
	}

	@Contract("null -> false")
	private static boolean startsWithMagic(byte @Nullable [] bytes) {
		return bytes != null && bytes.length >= MAGIC.length
				&& Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
	}

	/** Checks a payload against {@code maxSize} bytes, alone and as stored with its headers. */
	static void checkSize(Map<String, String> headers, byte[] payload, long maxSize) {
		JobConstraints.payload(payload, maxSize);
		long size = encode(headers, payload).length;
		if (size > payload.length && size > maxSize) {
			throw new IllegalArgumentException("payload with headers must be at most " + maxSize
					+ " bytes (delayqueue.max-payload-size), was " + size + " bytes");
		}
	}

	/** Reads what {@link #encode} stored; bytes without a well-formed header section are the payload. */
	static Read decode(byte @Nullable [] stored) {
		if (startsWithMagic(stored)) {
			int end = indexOf(stored, END, MAGIC.length);
			Map<String, String> headers = new LinkedHashMap<>();
			int line = MAGIC.length;
			while (end > 0 && line < end) {
				int nl = indexOf(stored, (byte) '\n', line);
				int eq = indexOf(stored, (byte) '=', line);
				if (nl < 0 || nl > end || eq < 0 || eq > nl || eq == line) {
					break;
				}
				headers.put(new String(stored, line, eq - line, StandardCharsets.UTF_8),
						new String(stored, eq + 1, nl - eq - 1, StandardCharsets.UTF_8));
				line = nl + 1;
			}
			if (line == end) {
				return new Read(headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(headers),
						Arrays.copyOfRange(stored, end + 1, stored.length));
			}
		}
		return new Read(Map.of(), stored);
	}

	static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

}
