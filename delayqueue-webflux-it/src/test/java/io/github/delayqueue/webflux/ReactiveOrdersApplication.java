package io.github.delayqueue.webflux;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.core.ReactiveDelayedJobTemplate;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.actuate.web.reactive.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A WebFlux application as a new user builds it: handlers schedule, find and cancel through
 * the {@link ReactiveDelayedJobTemplate}, a {@code @DelayedListener} closes the orders, and
 * Actuator (with the delayqueue endpoint) needs the role OPS.
 */
@SpringBootApplication
public class ReactiveOrdersApplication {

	/** The orders the listener closed, as their payloads. */
	final BlockingQueue<byte[]> closed = new LinkedBlockingQueue<>();

	@DelayedListener(topic = "order-close")
	void close(byte[] order) {
		this.closed.add(order);
	}

	@Bean
	@Order(1)
	SecurityWebFilterChain actuatorSecurity(ServerHttpSecurity http) {
		return http.securityMatcher(EndpointRequest.toAnyEndpoint())
			.authorizeExchange((exchanges) -> exchanges.matchers(EndpointRequest.to("health"))
				.permitAll()
				.anyExchange()
				.hasRole("OPS"))
			.httpBasic(Customizer.withDefaults())
			.csrf((csrf) -> csrf.disable())
			.build();
	}

	@Bean
	@Order(2)
	SecurityWebFilterChain ordersSecurity(ServerHttpSecurity http) {
		return http.authorizeExchange((exchanges) -> exchanges.anyExchange().authenticated())
			.httpBasic(Customizer.withDefaults())
			.csrf((csrf) -> csrf.disable())
			.build();
	}

	@RestController
	static class Orders {

		private final ReactiveDelayedJobTemplate jobs;

		Orders(ReactiveDelayedJobTemplate jobs) {
			this.jobs = jobs;
		}

		@PostMapping("/orders/{id}")
		Mono<ResponseEntity<Void>> place(@PathVariable String id, @RequestBody byte[] order,
				@RequestParam(defaultValue = "1800000") long closeAfterMillis) {
			return this.jobs.schedule("order-close", id, order, Duration.ofMillis(closeAfterMillis))
				.map((created) -> ResponseEntity.status(created ? HttpStatus.CREATED : HttpStatus.OK).build());
		}

		@GetMapping("/orders/{id}/close")
		Mono<ResponseEntity<String>> closing(@PathVariable String id) {
			return this.jobs.find("order-close", id)
				.map((job) -> ResponseEntity.ok(job.state() + " " + job.dueAt()))
				.defaultIfEmpty(ResponseEntity.notFound().build());
		}

		@DeleteMapping("/orders/{id}/close")
		Mono<ResponseEntity<Void>> keepOpen(@PathVariable String id) {
			return this.jobs.cancel("order-close", id)
				.map((cancelled) -> cancelled ? ResponseEntity.noContent().build() : ResponseEntity.notFound().build());
		}

		/** The template's refusal of bad input, such as an id too long, as a 400. */
		@ExceptionHandler(IllegalArgumentException.class)
		ProblemDetail refused(IllegalArgumentException ex) {
			return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
		}

	}

}
