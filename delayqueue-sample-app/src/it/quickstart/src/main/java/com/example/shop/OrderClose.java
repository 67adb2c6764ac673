package com.example.shop;

// the payload of an order-close job: stored as JSON, read back into this record
public record OrderClose(String orderId) {
}
