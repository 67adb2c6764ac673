package io.github.delayqueue.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Sends HTTP/1.1 requests with a request target written byte for byte as given (no
 * normalization, no encoding): for tries with path tricks that an HTTP client library would
 * clean up first.
 */
final class RawHttp {

	private RawHttp() {
	}

	/**
	 * Sends one request on a new connection and reads the whole answer.
	 * @param port the local port
	 * @param method the method
	 * @param target the request target, as sent
	 * @param authorization the {@code Authorization} header, or {@code null}
	 * @param body a JSON body, or {@code null}
	 * @return the answer
	 */
	static Answer send(int port, String method, String target, String authorization, String body) {
		try (Socket socket = new Socket("localhost", port)) {
			socket.setSoTimeout(30_000);
			byte[] content = (body != null) ? body.getBytes(StandardCharsets.UTF_8) : new byte[0];
			StringBuilder request = new StringBuilder();
			request.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
			request.append("Host: localhost:").append(port).append("\r\n");
			request.append("Connection: close\r\n");
			if (authorization != null) {
				request.append("Authorization: ").append(authorization).append("\r\n");
			}
			if (body != null) {
				request.append("Content-Type: application/json\r\n");
			}
			request.append("Content-Length: ").append(content.length).append("\r\n\r\n");
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
			out.write(content);
			out.flush();
			InputStream in = socket.getInputStream();
			ByteArrayOutputStream read = new ByteArrayOutputStream();
			in.transferTo(read);
			String text = read.toString(StandardCharsets.UTF_8);
			int headEnd = text.indexOf("\r\n\r\n");
			String head = (headEnd >= 0) ? text.substring(0, headEnd) : text;
			String[] statusLine = head.split("\r\n", 2)[0].split(" ");
			return new Answer(Integer.parseInt(statusLine[1]), head, (headEnd >= 0) ? text.substring(headEnd + 4) : "");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * An answer: its status, its head (status line and headers) and its body (as sent, chunked
	 * or not).
	 */
	record Answer(int status, String head, String body) {

	}

}
