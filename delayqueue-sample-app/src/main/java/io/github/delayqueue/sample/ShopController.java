package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sample's REST API: orders, and the simulated webhook receiver.
 */
@RestController
class ShopController {

	private final OrderService orders;

	private final WebhookService webhooks;

	private final DelayedJobTemplate template;

	ShopController(OrderService orders, WebhookService webhooks, DelayedJobTemplate template) {
		this.orders = orders;
		this.webhooks = webhooks;
		this.template = template;
	}

	record PlaceOrder(String item, BigDecimal amount) {

	}

	record ReceiverState(boolean up) {

	}

	@PostMapping("/orders")
	ResponseEntity<Map<String, Object>> place(@RequestBody PlaceOrder request) {
		if (request.item() == null || request.item().isBlank()) {
			throw new IllegalArgumentException("item must not be blank");
		}
		if (request.amount() == null || request.amount().signum() <= 0) {
			throw new IllegalArgumentException("amount must be greater than 0, was " + request.amount());
		}
		Order order = this.orders.place(request.item(), request.amount());
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
	ReceiverState receiver(@RequestBody ReceiverState state) {
		this.webhooks.setReceiverUp(state.up());
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

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<Map<String, Object>> badRequest(IllegalArgumentException ex) {
		return error(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler(IllegalStateException.class)
	ResponseEntity<Map<String, Object>> conflict(IllegalStateException ex) {
		return error(HttpStatus.CONFLICT, ex.getMessage());
	}

	private static ResponseEntity<Map<String, Object>> error(HttpStatus status, String message) {
		return ResponseEntity.status(status).body(Map.of("status", status.value(), "error", message));
	}

}
