package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;

/**
 * The depth and lag of each topic over the dashboard's chart window, from the readings of the
 * metrics sampler ({@code DelayQueueSampler}, one reading every
 * {@code delayqueue.metrics.sample-interval}): a page opened now draws the last minutes at once,
 * at no Redis cost of its own. Keeps at most {@value #MAX_SAMPLES} readings of at most
 * {@value #MAX_TOPICS} topics each: with readings more often than the window allows for that
 * many, a reading closer to the last one kept than three quarters of the window's share of one
 * is left out, so that the readings kept reach across most of the window however often the
 * sampler reads. Thread-safe.
 */
public final class DashboardHistory implements Consumer<QueueStats> {

	/** The most readings kept. */
	public static final int MAX_SAMPLES = 3_600;

	/** The most topics kept of one reading (by name). */
	public static final int MAX_TOPICS = 50;

	private final Duration window;

	private final Duration spacing;

	private final Deque<Sample> samples = new ArrayDeque<>();

	/**
	 * Creates a history.
	 * @param window how far back it reaches
	 */
	public DashboardHistory(Duration window) {
		this.window = window;
		this.spacing = window.multipliedBy(3).dividedBy(4L * MAX_SAMPLES);
	}

	@Override
	public void accept(QueueStats stats) {
		Map<String, Point> topics = new TreeMap<>();
		for (Map.Entry<String, TopicStats> topic : stats.topics().entrySet()) {
			if (topics.size() == MAX_TOPICS) {
				break;
			}
			TopicStats figures = topic.getValue();
			topics.put(topic.getKey(), new Point(figures.delayed() + figures.ready() + figures.reserved(),
					figures.overdueLag(stats.readAt()).toMillis()));
		}
		Instant oldest = stats.readAt().minus(this.window);
		synchronized (this.samples) {
			Sample last = this.samples.peekLast();
			if (last != null && stats.readAt().isBefore(last.at().plus(this.spacing))) {
				return;
			}
			this.samples.addLast(new Sample(stats.readAt(), topics));
			while (this.samples.size() > MAX_SAMPLES
					|| (!this.samples.isEmpty() && this.samples.peekFirst().at().isBefore(oldest))) {
				this.samples.removeFirst();
			}
		}
	}

	/**
	 * The readings kept, oldest first.
	 * @return a copy of them
	 */
	public List<Sample> samples() {
		synchronized (this.samples) {
			return List.copyOf(this.samples);
		}
	}

	/**
	 * One reading.
	 *
	 * @param at Redis's time of the reading
	 * @param topics each topic's figures
	 */
	public record Sample(Instant at, Map<String, Point> topics) {

	}

	/**
	 * One topic's figures in a reading.
	 *
	 * @param depth its DELAYED, READY and RESERVED jobs
	 * @param lag how long its oldest overdue job had waited, in milliseconds
	 */
	public record Point(long depth, long lag) {

	}

}
