"""Take screenshots of the main pages of a running demo (`deskgraph demo`) in headless Chromium.

Usage: take.py BASE_URL OUT_DIR. Signs in with the demo's logins (alice, an agent; carol, a requester) and saves
PNGs named after what they show. Called by scripts/screenshots.sh, which starts the demo.
"""
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ready
from selenium.webdriver.support.ui import WebDriverWait


def browser(width, height, dark=False):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    if dark:
        options.add_argument("--blink-settings=preferredColorScheme=0")
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for(driver, css):
    return WebDriverWait(driver, 15).until(ready.presence_of_element_located((By.CSS_SELECTOR, css)))


def sign_in(driver, base, username):
    driver.get(f"{base}/accounts/login/")
    wait_for(driver, "#username").send_keys(username)
    wait_for(driver, "#password").send_keys(f"{username}-demo")
    wait_for(driver, "#sign-in").click()
    wait_for(driver, ".signed-in")


def shoot(driver, out, name):
    # The whole page's height, so that nothing is cut off below the fold.
    width = driver.execute_script("return window.innerWidth")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    # The window is a little taller than its viewport.
    driver.set_window_size(width, min(max(height + 120, 600), 2400))
    path = os.path.join(out, f"{name}.png")
    driver.save_screenshot(path)
    print(path)


def main(base, out):
    os.makedirs(out, exist_ok=True)
    agent = browser(1400, 900)
    try:
        sign_in(agent, base, "alice")
        agent.get(f"{base}/tickets/")
        wait_for(agent, "table.queue")
        shoot(agent, out, "queue")
        # The ticket with the most to show: the first of the queue that has comments.
        first = wait_for(agent, "table.queue a.ticket-title").get_attribute("href")
        agent.set_window_size(1400, 900)
        agent.get(first)
        wait_for(agent, "#ticket-sla, .comment, h1")
        shoot(agent, out, "ticket")
        agent.set_window_size(1400, 900)
        agent.get(f"{base}/reports/")
        wait_for(agent, "h1")
        shoot(agent, out, "reports")
    finally:
        agent.quit()
    requester = browser(500, 900)
    try:
        sign_in(requester, base, "carol")
        requester.get(f"{base}/tickets/")
        wait_for(requester, "h1")
        shoot(requester, out, "queue-requester-500px")
    finally:
        requester.quit()
    dark = browser(1400, 900, dark=True)
    try:
        sign_in(dark, base, "alice")
        dark.get(f"{base}/tickets/")
        wait_for(dark, "table.queue")
        shoot(dark, out, "queue-dark")
    finally:
        dark.quit()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
