package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.JobInfo;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's REST API: orders, and the simulated webhook receiver. Bodies are read into
 * records by the application's JSON mapper, which is strict ({@link SampleApplication}), and
 * their values checked here: a refusal is {@code application/problem+json} naming the field.
 */
@RestController
class ShopController {

	/** The longest item name an order takes. */
	static final int MAX_ITEM_LENGTH = 200;

	/** The largest amount an order takes. */
	static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000");

	private final OrderService orders;

	private final WebhookService webhooks;

	private final DelayedJobOperations template;

	ShopController(OrderService orders, WebhookService webhooks, DelayedJobOperations template) {
		this.orders = orders;
		this.webhooks = webhooks;
		this.template = template;
	}

	record PlaceOrder(String item, BigDecimal amount) {

	}

	record ReceiverState(Boolean up) {

	}

	/**
	 * Places an order: {@code {"item": "book", "amount": 12.50}}.
	 */
	@PostMapping("/orders")
	ResponseEntity<Map<String, Object>> place(@RequestBody PlaceOrder body) {
		String item = text("item", body.item(), MAX_ITEM_LENGTH);
		BigDecimal amount = amount("amount", body.amount(), MAX_AMOUNT);
		Order order = this.orders.place(item, amount);
		return ResponseEntity.created(URI.create("/orders/" + order.id())).body(view(order));
	}

	@GetMapping("/orders")
	List<Map<String, Object>> all() {
		return this.orders.all().stream().map(this::view).toList();
	}

	@GetMapping("/orders/{id}")
	ResponseEntity<Map<String, Object>> one(@PathVariable String id) {
		return ResponseEntity.of(this.orders.find(id).map(this::view));
	}

	@PostMapping("/orders/{id}/pay")
	ResponseEntity<Map<String, Object>> pay(@PathVariable String id) {
		return ResponseEntity.of(this.orders.pay(id).map(this::view));
	}

	@GetMapping("/webhooks/deliveries")
	List<WebhookService.Delivery> deliveries() {
		return this.webhooks.deliveries();
	}

	@PutMapping("/webhooks/receiver")
	ReceiverState receiver(@RequestBody ReceiverState body) {
		if (body.up() == null) {
			throw refused("up", "up must be true or false");
		}
		this.webhooks.setReceiverUp(body.up());
		return new ReceiverState(this.webhooks.isReceiverUp());
	}

	/**
	 * The order with its close job as the queue has it.
	 */
	private Map<String, Object> view(Order order) {
		Map<String, Object> view = new LinkedHashMap<>();
		view.put("id", order.id());
		view.put("item", order.item());
		view.put("amount", order.amount());
		view.put("status", order.status());
		view.put("placedAt", order.placedAt());
		view.put("closesAt", order.closesAt());
		view.put("settledAt", order.settledAt());
		view.put("closeJob", this.template.find(OrderService.CLOSE_TOPIC, order.id()).map(JobInfo::state).orElse(null));
		return view;
	}

	/**
	 * A text of 1 to {@code maxLength} characters, not blank.
	 */
	private static String text(String field, String text, int maxLength) {
		if (text == null || text.isBlank() || text.length() > maxLength) {
			throw refused(field, field + " must be 1 to " + maxLength + " characters, not blank, was "
					+ ((text != null) ? text.length() : "none"));
		}
		return text;
	}

	/**
	 * An amount of money: above 0, at most {@code max}, with at most two decimals.
	 */
	private static BigDecimal amount(String field, BigDecimal amount, BigDecimal max) {
		if (amount == null || amount.signum() <= 0 || amount.compareTo(max) > 0
				|| amount.stripTrailingZeros().scale() > 2) {
			throw refused(field, field + " must be greater than 0 and at most " + max.toPlainString()
					+ ", with at most two decimals, was " + amount);
		}
		return amount;
	}

	/**
	 * Bad input: {@code application/problem+json} with the field at fault, as the queue's own
	 * HTTP API and endpoint answer.
	 */
	private static ErrorResponseException refused(String field, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
		problem.setProperty("field", field);
		return new ErrorResponseException(HttpStatus.BAD_REQUEST, problem, null);
	}

	@ExceptionHandler
	ErrorResponse refused(ErrorResponseException ex) {
		return ex;
	}

	/**
	 * A body that is not the JSON object of a route's fields, naming the top-level field at
	 * fault when there is one.
	 */
	@ExceptionHandler
	ErrorResponse unreadable(HttpMessageNotReadableException ex) {
		if (ex.getCause() instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
			String field = jackson.getPath().get(0).getPropertyName();
			Class<?> type = (jackson instanceof MismatchedInputException mismatch) ? mismatch.getTargetType() : null;
			return refused(field, (jackson instanceof UnrecognizedPropertyException) ? "unknown field '" + field + "'"
					: field + ((type == String.class) ? " must be a string"
							: (type == Boolean.class) ? " must be true or false" : " must be a number such as 12.50"));
		}
		return ErrorResponse.create(ex, HttpStatus.BAD_REQUEST, "the request body must be a JSON object of the route's fields");
	}

	@ExceptionHandler(IllegalStateException.class)
	ResponseEntity<ProblemDetail> conflict(IllegalStateException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage()));
	}

}
