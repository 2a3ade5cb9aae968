/** Express 5 route doing what the transform endpoint does. */
import express from 'express';
import { announce, cachedPatient } from './transform-resource.js';

const app = express();
app.get('/fhir/transform/Patient/:id', (req, res) => {
  res.type('application/fhir+json').send(JSON.stringify({ ...cachedPatient, id: req.params.id }));
});
const server = app.listen(0, '127.0.0.1', () => announce(server));
