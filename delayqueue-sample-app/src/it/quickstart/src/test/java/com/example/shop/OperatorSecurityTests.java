package com.example.shop;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "delayqueue.dashboard.enabled=true",
		"spring.security.user.name=ops", "spring.security.user.password=ops-password" })
@AutoConfigureTestRedis
class OperatorSecurityTests {

	// a route of the application's own, as a shop's POST /orders
	@TestConfiguration(proxyBeanMethods = false)
	static class OrdersRoute {

		@Bean
		RouterFunction<ServerResponse> orders() {
			return RouterFunctions.route().POST("/orders", (request) -> ServerResponse.ok().body("placed")).build();
		}

	}

	@LocalServerPort
	int port;

	@Test
	void theApplicationsRoutesStayOpenWhileTheDashboardAndActuatorNeedASignIn() throws Exception {
		assertThat(send("POST", "/orders", null).statusCode()).isEqualTo(200);
		String ops = "Basic " + Base64.getEncoder().encodeToString("ops:ops-password".getBytes(StandardCharsets.UTF_8));
		for (String path : new String[] { "/delayqueue-dashboard", "/actuator/health" }) {
			assertThat(send("GET", path, null).statusCode()).as(path).isEqualTo(401);
			assertThat(send("GET", path, ops).statusCode()).as(path + " signed in").isEqualTo(200);
		}
	}

	private HttpResponse<String> send(String method, String path, String authorization) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody());
		if (authorization != null) {
			request.header("Authorization", authorization);
		}
		return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
