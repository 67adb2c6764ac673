package com.example.shop;

import java.time.Duration;

import io.github.delayqueue.core.DelayedJobOperations;

import org.springframework.stereotype.Service;

@Service
public class Checkout {

	private final DelayedJobOperations jobs;

	public Checkout(DelayedJobOperations jobs) {
		this.jobs = jobs;
	}

	public void orderPlaced(String orderId) {
		// topic and id name the job; scheduling the same pair again keeps the first job
		this.jobs.schedule("order-close", orderId, new OrderClose(orderId), Duration.ofMinutes(30));
	}

	public void orderPaid(String orderId) {
		this.jobs.cancel("order-close", orderId);
	}

}
