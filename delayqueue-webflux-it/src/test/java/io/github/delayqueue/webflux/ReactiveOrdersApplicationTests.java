package io.github.delayqueue.webflux;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter in a WebFlux application: reactive handlers schedule, find and cancel without
 * blocking, the listener runs, and Actuator's delayqueue endpoint answers over WebFlux behind
 * its credentials.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureTestRedis
@AutoConfigureWebTestClient(timeout = "PT30S")
class ReactiveOrdersApplicationTests {

	@Autowired
	private WebTestClient client;

	@Autowired
	private ReactiveOrdersApplication application;

	private WebTestClient.RequestHeadersSpec<?> asOps(WebTestClient.RequestHeadersSpec<?> request) {
		return request.headers((headers) -> headers.setBasicAuth("ops", "ops-secret"));
	}

	@Test
	void aReactiveHandlerSchedulesAndTheListenerGetsThePayloadByteForByte() throws Exception {
		byte[] order = { 0, (byte) 0xfe, '{', 10, (byte) 0x80 };
		asOps(this.client.post().uri("/orders/a1?closeAfterMillis=100")
			.contentType(MediaType.APPLICATION_OCTET_STREAM)
			.bodyValue(order)).exchange().expectStatus().isCreated();
		assertThat(this.application.closed.poll(30, TimeUnit.SECONDS)).isEqualTo(order);
	}

	@Test
	void findAndCancelAnswerFromTheHandlers() {
		asOps(this.client.post().uri("/orders/b1").bodyValue(new byte[] { 1 })).exchange().expectStatus().isCreated();
		asOps(this.client.post().uri("/orders/b1").bodyValue(new byte[] { 2 })).exchange().expectStatus().isOk();
		asOps(this.client.get().uri("/orders/b1/close")).exchange()
			.expectStatus().isOk()
			.expectBody(String.class).value((body) -> assertThat(body).startsWith("DELAYED "));
		asOps(this.client.delete().uri("/orders/b1/close")).exchange().expectStatus().isNoContent();
		asOps(this.client.delete().uri("/orders/b1/close")).exchange().expectStatus().isNotFound();
		asOps(this.client.get().uri("/orders/b1/close")).exchange().expectStatus().isNotFound();
	}

	@Test
	void badInputIsRefusedWithTheBlockingCallsMessage() {
		asOps(this.client.post().uri("/orders/" + "x".repeat(201)).bodyValue(new byte[] { 1 })).exchange()
			.expectStatus().isBadRequest()
			.expectBody().jsonPath("$.detail").isEqualTo("id must be at most 200 characters long, was 201");
	}

	@Test
	void everySurfaceRefusesARequestWithoutCredentials() {
		this.client.post().uri("/orders/c1").bodyValue(new byte[] { 1 }).exchange().expectStatus().isUnauthorized();
		this.client.get().uri("/actuator/delayqueue").exchange().expectStatus().isUnauthorized();
		this.client.post().uri("/actuator/delayqueue/order-close")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"action\":\"pause\"}")
			.exchange()
			.expectStatus().isUnauthorized();
		this.client.delete().uri("/actuator/delayqueue/order-close/c1").exchange().expectStatus().isUnauthorized();
		this.client.get().uri("/actuator/health").exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.components.delayqueue.status").isEqualTo("UP");
	}

	@Test
	void theEndpointAnswersOverWebFlux() {
		asOps(this.client.post().uri("/orders/d1").bodyValue(new byte[] { 1 })).exchange().expectStatus().isCreated();
		asOps(this.client.get().uri("/actuator/delayqueue")).exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.topics['order-close']").exists();
		asOps(this.client.get().uri("/actuator/delayqueue/order-close/d1")).exchange()
			.expectStatus().isOk()
			.expectBody().jsonPath("$.state").isEqualTo("DELAYED");
		asOps(this.client.post().uri("/actuator/delayqueue/order-close")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"action\":\"explode\"}")).exchange()
			.expectStatus().isBadRequest()
			.expectBody(String.class).value((body) -> assertThat(body).contains("action"));
		asOps(this.client.delete().uri("/actuator/delayqueue/order-close/d1")).exchange().expectStatus().isOk();
		asOps(this.client.get().uri("/orders/d1/close")).exchange().expectStatus().isNotFound();
	}

}
