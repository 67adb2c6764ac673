package io.github.delayqueue.rabbit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a broker whose connections can be blocked: while blocked, bytes
 * are held in both directions (the client's publishes wait unsent, the broker's confirms
 * unread), as on a connection the broker blocks or a network that stalls; unblocked, they
 * flow again. Connections stay open throughout.
 */
final class BlockingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final int target;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final Object lock = new Object();

	private boolean blocked;

	BlockingProxy(int target) {
		this.target = target;
		try {
			this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Thread acceptor = new Thread(this::accept, "blocking-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	void block() {
		synchronized (this.lock) {
			this.blocked = true;
		}
	}

	void unblock() {
		synchronized (this.lock) {
			this.blocked = false;
			this.lock.notifyAll();
		}
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket broker = new Socket(InetAddress.getLoopbackAddress(), this.target);
				this.sockets.add(client);
				this.sockets.add(broker);
				pump(client, broker);
				pump(broker, client);
			}
			catch (IOException ex) {
				// closed
			}
		}
	}

	private void pump(Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16_384];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					awaitUnblocked();
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// a side closed
			}
			finally {
				close(from);
				close(to);
			}
		}, "blocking-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	private void awaitUnblocked() throws InterruptedException {
		synchronized (this.lock) {
			while (this.blocked) {
				this.lock.wait();
			}
		}
	}

	private static void close(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing
		}
	}

	@Override
	public void close() {
		unblock();
		close(this.server);
		this.sockets.forEach(BlockingProxy::close);
	}

	private static void close(ServerSocket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing
		}
	}

}
