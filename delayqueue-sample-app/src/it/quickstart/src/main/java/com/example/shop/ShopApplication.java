package com.example.shop;

import java.time.Duration;

import io.github.delayqueue.core.DelayedJobOperations;

import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

@SpringBootApplication
public class ShopApplication {

	public static void main(String[] args) {
		SpringApplication.run(ShopApplication.class, args);
	}

	// a first job, due 5 seconds after start-up, to see the listener run it
	@Bean
	ApplicationRunner firstJob(DelayedJobOperations jobs) {
		return (args) -> jobs.schedule("order-close", "demo-1", new OrderClose("demo-1"), Duration.ofSeconds(5));
	}

}
