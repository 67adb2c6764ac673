package io.github.delayqueue.sample;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's REST API: orders, and the simulated webhook receiver.
 */
@RestController
class ShopController {

	/** The longest item name an order takes. */
	static final int MAX_ITEM_LENGTH = 200;

	/** The largest amount an order takes. */
	static final BigDecimal MAX_AMOUNT = new BigDecimal("1000000");

	private final OrderService orders;

	private final WebhookService webhooks;

	private final DelayedJobTemplate template;

	private final JsonMapper mapper;

	ShopController(OrderService orders, WebhookService webhooks, DelayedJobTemplate template, JsonMapper mapper) {
		this.orders = orders;
		this.webhooks = webhooks;
		this.template = template;
		this.mapper = mapper;
	}

	record ReceiverState(boolean up) {

	}

	/**
	 * Places an order: {@code {"item": "book", "amount": 12.50}}. Every field is checked, and
	 * a refusal names it (see {@link JsonBody}).
	 */
	@PostMapping("/orders")
	ResponseEntity<Map<String, Object>> place(HttpServletRequest request) throws IOException {
		JsonBody body = JsonBody.read(request, this.mapper, List.of("item", "amount"));
		String item = body.text("item", MAX_ITEM_LENGTH);
		BigDecimal amount = body.amount("amount", MAX_AMOUNT);
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
	ReceiverState receiver(HttpServletRequest request) throws IOException {
		boolean up = JsonBody.read(request, this.mapper, List.of("up")).flag("up");
		this.webhooks.setReceiverUp(up);
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
	 * Bad input: {@code application/problem+json} with the field at fault, as the queue's own
	 * HTTP API and endpoint answer.
	 */
	@ExceptionHandler
	ResponseEntity<ProblemDetail> refused(JsonBody.Refusal refusal) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(refusal.status(), refusal.getMessage());
		if (refusal.field() != null) {
			problem.setProperty("field", refusal.field());
		}
		return ResponseEntity.status(refusal.status()).body(problem);
	}

	@ExceptionHandler(IllegalStateException.class)
	ResponseEntity<ProblemDetail> conflict(IllegalStateException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage()));
	}

}
