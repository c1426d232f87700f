// Starts Swagger UI on /docs (gateway/src/turf_gateway/api/docs.py): a file, not an inline script, so the
// Content-Security-Policy ('self' only) lets it run.
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.openapi,
  dom_id: "#swagger-ui",
  deepLinking: true,
  persistAuthorization: false,   // a bearer token typed here is not kept in the browser's storage
});
