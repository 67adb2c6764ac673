package io.github.delayqueue.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a job record holds after its header line: the payload bytes as given, or, for a job
 * with headers, the headers before them. The scripts never read it. A job without headers
 * whose payload does not start with a NUL byte (any JSON or text payload) is stored exactly
 * as its payload: headers cost nothing when unused. Otherwise it is a NUL byte, one
 * {@code name=value} line (ending in {@code '\n'}) per header, a NUL byte, then the payload;
 * header names and values contain no control characters
 * ({@link io.github.delayqueue.core.JobConstraints#headers}), so neither NUL nor line breaks.
 * A payload that starts with a NUL byte is stored with an empty header section.
 */
final class StoredPayload {

	private static final byte MARK = 0;

	private StoredPayload() {
	}

	/**
	 * A stored payload read back.
	 * @param headers the job's headers, unmodifiable
	 * @param payload the payload as given
	 */
	record Read(Map<String, String> headers, byte[] payload) {
	}

	/**
	 * What to store for a payload and headers.
	 * @param headers checked headers
	 * @param payload the payload
	 * @return the payload itself when there are no headers and it does not start with NUL
	 */
	static byte[] encode(Map<String, String> headers, byte[] payload) {
		if (headers.isEmpty() && (payload.length == 0 || payload[0] != MARK)) {
			return payload;
		}
		ByteArrayOutputStream out = new ByteArrayOutputStream(payload.length + 2 + 32 * headers.size());
		out.write(MARK);
		headers.forEach((name, value) -> {
			out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
			out.write('=');
			out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
			out.write('\n');
		});
		out.write(MARK);
		out.writeBytes(payload);
		return out.toByteArray();
	}

	/**
	 * How many bytes {@link #encode} stores.
	 * @param headers checked headers
	 * @param payload the payload
	 * @return the stored size
	 */
	static long size(Map<String, String> headers, byte[] payload) {
		if (headers.isEmpty()) {
			return (payload.length > 0 && payload[0] == MARK) ? payload.length + 2L : payload.length;
		}
		long size = payload.length + 2L;
		for (Map.Entry<String, String> header : headers.entrySet()) {
			size += header.getKey().getBytes(StandardCharsets.UTF_8).length
					+ header.getValue().getBytes(StandardCharsets.UTF_8).length + 2;
		}
		return size;
	}

	/**
	 * Reads what {@link #encode} stored. Bytes that start with NUL but have no well-formed
	 * header section (a payload stored by an earlier version) are the payload.
	 * @param stored the stored bytes, or {@code null}
	 * @return the headers and the payload ({@code null} for {@code null})
	 */
	static Read decode(byte[] stored) {
		if (stored == null || stored.length == 0 || stored[0] != MARK) {
			return new Read(Map.of(), stored);
		}
		int end = indexOf(stored, MARK, 1);
		if (end < 0) {
			return new Read(Map.of(), stored);
		}
		Map<String, String> headers = new LinkedHashMap<>();
		int line = 1;
		while (line < end) {
			int nl = indexOf(stored, (byte) '\n', line);
			int eq = indexOf(stored, (byte) '=', line);
			if (nl < 0 || nl > end || eq < 0 || eq > nl || eq == line) {
				return new Read(Map.of(), stored);
			}
			headers.put(new String(stored, line, eq - line, StandardCharsets.UTF_8),
					new String(stored, eq + 1, nl - eq - 1, StandardCharsets.UTF_8));
			line = nl + 1;
		}
		if (line != end) {
			return new Read(Map.of(), stored);
		}
		return new Read(headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(headers),
				Arrays.copyOfRange(stored, end + 1, stored.length));
	}

	private static int indexOf(byte[] bytes, byte value, int from) {
		for (int i = from; i < bytes.length; i++) {
			if (bytes[i] == value) {
				return i;
			}
		}
		return -1;
	}

}
