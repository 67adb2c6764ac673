package io.github.delayqueue.actuate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The audit log: one line at INFO on the logger {@value #LOGGER_NAME} for each write made
 * through the Actuator endpoint or the HTTP job API, such as
 * {@code by=alice via=endpoint action=replay topic=orders count=2 ids=[o-17, o-18]}. Values
 * that are not plain words are written as JSON strings; tokens and payloads never are.
 */
public final class AuditLog {

	/** The name of the logger the lines are written to. */
	public static final String LOGGER_NAME = "io.github.delayqueue.audit";

	/** The most ids a line names; {@code count} says how many there were. */
	public static final int MAX_IDS = 20;

	/** Who a line names when the request carried no principal and no token. */
	public static final String ANONYMOUS = "anonymous";

	private static final Log logger = LogFactory.getLog(LOGGER_NAME);

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._:@\\[\\]/-]+");

	private AuditLog() {
	}

	/**
	 * Starts a line.
	 * @param via what the write came through, such as {@code endpoint} or {@code http-api}
	 * @param who the principal's name or the token's place, or {@code null} for anonymous
	 * @param action what was done, such as {@code replay} or {@code cancel}
	 * @return the line, to complete and {@link #write}
	 */
	public static Entry entry(String via, @Nullable String who, String action) {
		return new Entry(via, (who != null) ? who : ANONYMOUS, action);
	}

	/**
	 * Writes a line, when the audit logger is on at INFO.
	 * @param entry the line
	 */
	public static void write(Entry entry) {
		if (logger.isInfoEnabled()) {
			logger.info(entry.toString());
		}
	}

	static String value(String text) {
		if (PLAIN.matcher(text).matches()) {
			return text;
		}
		StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				quoted.append('\\').append(c);
			}
			else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
				quoted.append(String.format("\\u%04x", (int) c));
			}
			else {
				quoted.append(c);
			}
		}
		return quoted.append('"').toString();
	}

	/** One line of the audit log. */
	public static final class Entry {

		private final String via;

		private final String who;

		private final String action;

		private @Nullable String topic;

		private long count;

		private final List<String> ids = new ArrayList<>();

		private final Map<String, Object> details = new LinkedHashMap<>();

		private Entry(String via, String who, String action) {
			this.via = via;
			this.who = who;
			this.action = action;
		}

		public Entry topic(String topic) {
			this.topic = topic;
			return this;
		}

		public Entry count(long count) {
			this.count = count;
			return this;
		}

		/**
		 * Sets the ids concerned (replacing those set before); only the first {@value #MAX_IDS} are written.
		 * @param ids the ids
		 * @return this line
		 */
		public Entry ids(List<String> ids) {
			this.ids.clear();
			this.ids.addAll(ids);
			return this;
		}

		public Entry detail(String name, Object value) {
			this.details.put(name, value);
			return this;
		}

		/**
		 * Marks a write that failed; {@code count} says how many jobs it is known to have changed.
		 * @param failure why it failed
		 * @return this line
		 */
		public Entry failed(Throwable failure) {
			return detail("failed", failure.getClass().getSimpleName());
		}

		/**
		 * Runs an endpoint's write and writes this line: as it is when the write found nothing,
		 * marked failed when it threw; a refused write (a bad argument) changes nothing and writes none.
		 */
		<T> T run(Supplier<T> write) {
			try {
				T done = write.get();
				AuditLog.write(this);
				return done;
			}
			catch (DelayQueueEndpoint.InvalidArgumentException ex) {
				throw ex;
			}
			catch (DelayQueueEndpoint.NotFoundException ex) {
				AuditLog.write(this);
				throw ex;
			}
			catch (RuntimeException | Error ex) {
				AuditLog.write(failed(ex));
				throw ex;
			}
		}

		@Override
		public String toString() {
			StringBuilder line = new StringBuilder();
			line.append("by=").append(value(this.who));
			line.append(" via=").append(value(this.via));
			line.append(" action=").append(value(this.action));
			if (this.topic != null) {
				line.append(" topic=").append(value(this.topic));
			}
			line.append(" count=").append(this.count);
			if (!this.ids.isEmpty()) {
				int shown = Math.min(this.ids.size(), MAX_IDS);
				line.append(" ids=[").append(String.join(", ", this.ids.stream().limit(shown).map(AuditLog::value).toList()));
				long more = Math.max(this.count, this.ids.size()) - shown;
				line.append((more > 0) ? ", +" + more + " more]" : "]");
			}
			this.details.forEach((name, value) -> line.append(' ')
				.append(name)
				.append('=')
				.append(value(String.valueOf(value))));
			return line.toString();
		}

	}

}
