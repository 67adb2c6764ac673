package io.github.delayqueue.sample;

import java.util.List;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.DelayedJob;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * A recurring job: every minute, report the orders still unpaid. The schedule is declared in
 * {@code application.properties} ({@code delayqueue.recurring.unpaid-report.*}); each tick is
 * an ordinary job of topic {@value #TOPIC}, fired once whatever the number of instances.
 */
@Component
class UnpaidOrdersReport {

	static final String TOPIC = "unpaid-report";

	private static final Log logger = LogFactory.getLog(UnpaidOrdersReport.class);

	private final OrderService orders;

	private volatile String lastReport = "none yet";

	UnpaidOrdersReport(OrderService orders) {
		this.orders = orders;
	}

	@DelayedListener(topic = TOPIC, id = "unpaid-reporter")
	void report(DelayedJob<String> tick) {
		List<Order> unpaid = this.orders.all().stream().filter((order) -> order.status() == Order.Status.CREATED).toList();
		this.lastReport = tick.id() + ": " + unpaid.size() + " unpaid order(s)";
		logger.info("Unpaid orders at " + tick.dueAt() + ": " + unpaid.size()
				+ (unpaid.isEmpty() ? "" : " " + unpaid.stream().map(Order::id).toList()));
	}

	String lastReport() {
		return this.lastReport;
	}

}
