pub mod cronjob_webhook;
